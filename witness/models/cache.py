"""What served requests can share, owned by whoever serves them: `RequestCache`.

A context's laws (`witness.models.laws.Law`), the target rows in each temperature and the keyed
uniform grids are pure functions of their keys, so keeping them never changes an answer,
only its cost. The trigram target and bigram draft see only the last two tokens, so the same
pair recurs within a request, across the sixteen requests of a k sweep, and as an instructor
drags k at one match; the grids depend on the seed alone, so a slider that moves the match
reuses the previous answer's grid.

The owner decides the lifetime: the app makes one cache per app instance; a caller that
passes none gets a fresh cache for that one call (laws are still shared within it). Two
things stay process-wide on purpose, because no request can change them: the model pairs
(`witness.models.pair.models_for`: the n-grams fitted once from the shipped corpus, every
row they can give in two read-only tables; the transformers' trie of contexts) and
`witness.core.settings._bounds` (the `Settings` model's bounds, read once per field).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial

from witness.core.keys import Stream, block_uniforms, sibling_uniforms
from witness.models.laws import FloatArray, Law, law_at, target_at
from witness.models.pair import models_for

# ~2 000 pairs are ~30 MB at most (q, its CDF and the residual: ~15 kB a pair).
LAW_CACHE = 2048
# A request uses three grids (draft, accept, final) and the quick slice three more; the
# evaluation slice's are n x k (up to 100 000 x 16 floats, 12.8 MB), so only a few are kept.
GRID_CACHE = 8
# A served request's grids are small (tokens x k <= 256 x 16 floats, 32 kB) and an ensemble
# of seeded requests needs three per seed, so they are kept apart and many more of them.
SMALL_GRID = 256 * 16
SMALL_GRID_CACHE = 512
# The quick slice's grids (10 000 blocks at k = 1, 80 kB) come three per seed: a class
# dragging over a few seeds needs a dozen of them, more than GRID_CACHE holds beside the rest.
MEDIUM_GRID = 16_384
MEDIUM_GRID_CACHE = 48
SIBLING_GRID_CACHE = 128


class UniformGrids:
    """Keyed uniform grids `block_uniforms(seed, n, k, stream)`, the latest GRID_CACHE kept.

    Separate from the laws so that two caches may share grids (which depend on the seed
    alone): `RequestCache(grids=...)`.
    """

    def __init__(self, maxsize: int = GRID_CACHE, small: int = SMALL_GRID_CACHE) -> None:
        # lru_cache is thread-safe: two threads may compute one grid twice (it is pure), but
        # the bookkeeping is never corrupted. Bound per instance, so it dies with its owner.
        self._grid = lru_cache(maxsize=maxsize)(block_uniforms)
        self._small = lru_cache(maxsize=small)(block_uniforms)
        self._medium = lru_cache(maxsize=MEDIUM_GRID_CACHE)(block_uniforms)
        # A tree's [tokens, k, width] sibling grids (at most 256 x 16 x 4 floats, 128 kB):
        # an ensemble asks for one pair per seed, a slider move for the same pairs again.
        self.siblings = lru_cache(maxsize=SIBLING_GRID_CACHE)(sibling_uniforms)

    def __call__(self, seed: int, n: int, k: int, stream: Stream) -> FloatArray:
        size = n * k
        grid = (
            self._small
            if size <= SMALL_GRID
            else self._medium
            if size <= MEDIUM_GRID
            else self._grid
        )
        return grid(seed, n, k, stream)

    def __len__(self) -> int:
        return sum(
            c.cache_info().currsize for c in (self._grid, self._medium, self._small, self.siblings)
        )

    def clear(self) -> None:
        for c in (self._grid, self._medium, self._small, self.siblings):
            c.cache_clear()


class RequestCache:
    """Bounded, thread-safe store of per-context laws, target rows and uniform grids.

    Examples
    --------
    >>> cache = RequestCache()
    >>> cache.sizes()
    {'laws': 0, 'targets': 0, 'grids': 0}
    >>> cache.law(0.5, False, 0, 1, False) is cache.law(0.5, False, 0, 1, False)
    True
    >>> cache.sizes()
    {'laws': 1, 'targets': 1, 'grids': 0}
    """

    def __init__(
        self,
        *,
        maxsize: int = LAW_CACHE,
        grids: UniformGrids | None = None,
        models: str = "ngram",
    ) -> None:
        self.models = models
        self._maxsize = maxsize
        # The stores wrap module functions, not bound methods: no reference cycle through
        # self, so a cache made for one call is freed (with its laws) as soon as it is dropped.
        self._targets = lru_cache(maxsize=maxsize)(partial(_new_target, models))
        self._laws = lru_cache(maxsize=maxsize)(partial(_new_law, models, self._targets))
        self.grids = grids if grids is not None else UniformGrids()
        # One cache per model pair, sharing the grids (which depend on the seed alone): a
        # context's integers mean different things to each pair (`witness.models.pair`).
        self._pairs: dict[str, RequestCache] = {models: self}
        # The lookups are the lru_cache wrappers themselves, with no method around them: the
        # served request asks for a law at every drafted position.
        self.law: Callable[[float, bool, int, int, bool], Law] = self._laws
        """``law(match, greedy, before, prev, adversary)``: p and q at context (before, prev),
        and what the rule derives from them (``adversary``: the injected failing draft)."""
        self.target: Callable[[bool, int, int], FloatArray] = self._targets
        """``target(greedy, before, prev)``: p(. | before, prev) in the mode's temperature."""
        self.uniforms: Callable[[int, int, int, Stream], FloatArray] = self.grids
        """``uniforms(seed, n, k, stream)``: the keyed [n, k] grid of `block_uniforms`."""

    def of(self, models: str) -> RequestCache:
        """The cache of the laws of ``models``, beside this one (the same grids)."""
        found = self._pairs.get(models)
        if found is None:
            found = RequestCache(maxsize=self._maxsize, grids=self.grids, models=models)
            found._pairs = self._pairs
            self._pairs[models] = found
        return found

    def sizes(self) -> dict[str, int]:
        """How many entries each store holds now (every model pair's laws together)."""
        pairs = self._pairs.values()
        return {
            "laws": sum(c._laws.cache_info().currsize for c in pairs),
            "targets": sum(c._targets.cache_info().currsize for c in pairs),
            "grids": len(self.grids),
        }

    def clear(self) -> None:
        for c in self._pairs.values():
            c._laws.cache_clear()
            c._targets.cache_clear()
        self.grids.clear()


def _new_law(
    models: str,
    target: Callable[[bool, int, int], FloatArray],
    match: float,
    greedy: bool,
    before: int,
    prev: int,
    adversary: bool,
) -> Law:
    p = target(greedy, before, prev)
    return law_at(models_for(models), p, match, greedy, before, prev, adversary)


def _new_target(models: str, greedy: bool, before: int, prev: int) -> FloatArray:
    return target_at(models_for(models), greedy, before, prev)
