"""The lockstep ensemble (witness.lockstep) is the per-request path, bit for bit.

- every seed's `ServedPath` from `serve_lockstep` equals `serve_path`'s exactly (passes,
  every α as the same float, the first α, the scored pairs), over the chain's settings;
- `serve_ensemble` gives the same `Ensemble` whether its requests are served one by one
  (today's path), in lockstep, or through the app's memo of paths (`ServedPaths`);
- teeth: a lockstep that reads the next block's uniforms, or repairs from p, is caught.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import witness.lockstep
from tests.witness.strategies import PROPERTY
from witness.cache import RequestCache
from witness.ensemble import ensemble_seeds, serve_ensemble
from witness.keys import Stream
from witness.lockstep import ServedPaths, serve_lockstep, serve_paths
from witness.methods import is_chain
from witness.request import ServedPath, serve_path
from witness.settings import SEED_MAX, Settings

CACHE = RequestCache()  # results never depend on it: shared to keep the examples cheap
LOCKSTEP = settings(PROPERTY, max_examples=120)

chains = st.builds(
    Settings,
    match=st.one_of(st.sampled_from([0.0, 1.0, 0.6]), st.floats(0.0, 1.0, allow_subnormal=False)),
    k=st.integers(1, 16),
    tokens=st.one_of(st.integers(1, 12), st.integers(13, 64), st.just(256)),
    greedy=st.booleans(),
    verify=st.booleans(),
    repair=st.booleans(),
    draft_source=st.sampled_from(["model", "adversary"]),
    drafting=st.sampled_from(["sample", "distinct"]),
    seed=st.one_of(st.integers(0, 40), st.just(SEED_MAX)),
    prompt=st.sampled_from(["the draft model proposes", "", "zzz unknown", "the"]),
)


def _one_by_one(s: Settings, seeds: tuple[int, ...]) -> list[ServedPath]:
    return [serve_path(s.model_copy(update={"seed": seed}), cache=CACHE) for seed in seeds]


@LOCKSTEP
@given(chains, st.integers(1, 4))
def test_lockstep_paths_are_serve_paths_exactly(s: Settings, n: int) -> None:
    if s.tokens == 256:
        n = 1  # the longest request, kept cheap
    seeds = ensemble_seeds(s.seed, n)
    together = serve_lockstep(s, seeds, cache=CACHE)
    for seed, got, want in zip(seeds, together, _one_by_one(s, seeds), strict=True):
        assert got == want, f"seed {seed}"
        # Equal floats, not close ones: the same bits, α by α.
        assert [a.hex() for a in got.alphas] == [a.hex() for a in want.alphas]
        assert got.first_alpha.hex() == want.first_alpha.hex()


@pytest.mark.parametrize(
    "s",
    [
        Settings(),
        Settings(match=0.4312, k=4),
        Settings(match=0.0, k=16, tokens=200),
        Settings(match=1.0, k=8),
        Settings(tokens=1),
        Settings(tokens=2, seed=5),
        Settings(verify=False, k=5, tokens=31),
        Settings(repair=False, seed=3),
        Settings(greedy=True, match=0.2),
        Settings(draft_source="adversary", match=0.3),
        Settings(greedy=True, draft_source="adversary", match=0.0, k=3),
    ],
)
def test_a_full_ensemble_in_lockstep_is_every_request_served_alone(s: Settings) -> None:
    seeds = ensemble_seeds(s.seed, 32)
    assert serve_lockstep(s, seeds, cache=CACHE) == _one_by_one(s, seeds)


ENSEMBLE_SETTINGS = [
    Settings(),
    Settings(match=0.4312, k=4),
    Settings(match=0.0, k=16, tokens=100),
    Settings(tokens=1),
    Settings(verify=False, k=3),
    Settings(repair=False, greedy=True, match=0.5),
    Settings(draft_source="adversary"),
    # Not chains: served one by one, as before.
    Settings(tree_width=2, k=3),
    Settings(drafting="top", tree_width=1),
    Settings(acceptance="typical"),
    Settings(draft_source="lookup", prompt="the draft the draft the draft"),
]


@pytest.mark.parametrize("s", ENSEMBLE_SETTINGS)
def test_the_ensemble_is_unchanged(s: Settings) -> None:
    before = serve_ensemble(s, cache=CACHE, path=partial(serve_path, cache=CACHE))
    assert serve_ensemble(s, cache=CACHE) == before
    assert serve_ensemble(s) == before  # a fresh cache of its own
    memo = ServedPaths(RequestCache(), 4096)
    assert serve_ensemble(s, path=memo) == before
    # The next seed's ensemble shares all but one request with it: one is served.
    kept = len(memo)
    after = s.model_copy(update={"seed": s.seed + 1})
    assert serve_ensemble(after, path=memo) == serve_ensemble(
        after, path=partial(serve_path, cache=CACHE)
    )
    assert len(memo) == kept + 1


@settings(PROPERTY, max_examples=40)
@given(chains, st.integers(1, 3))
def test_the_ensemble_is_unchanged_for_any_chain(s: Settings, n: int) -> None:
    if s.tokens == 256:
        n = 1
    before = serve_ensemble(s, n, path=partial(serve_path, cache=CACHE))
    assert serve_ensemble(s, n, cache=CACHE) == before


def test_served_paths_is_a_path_and_a_bounded_memo() -> None:
    memo = ServedPaths(RequestCache(), 3)
    s = Settings(match=0.37, tokens=20)
    assert memo(s) == serve_path(s, cache=CACHE)
    requests = [s.model_copy(update={"seed": seed}) for seed in (1, 2, 1, 3, 4)]
    assert memo.many(requests) == [serve_path(r, cache=CACHE) for r in requests]
    assert len(memo) == 3  # the latest three kept
    tree = Settings(tree_width=2, k=2, tokens=10)
    assert memo(tree) == serve_path(tree, cache=CACHE)


def test_mixed_requests_are_grouped_and_kept_in_order() -> None:
    requests = [
        Settings(seed=3, tokens=9),
        Settings(tree_width=2, k=2, tokens=9),
        Settings(seed=4, tokens=9, match=0.2),
        Settings(seed=5, tokens=9),
    ]
    assert serve_paths(requests, cache=CACHE) == [serve_path(r, cache=CACHE) for r in requests]


def test_only_chains_are_served_in_lockstep() -> None:
    tree = Settings(tree_width=2, k=2)
    assert not is_chain(tree)
    with pytest.raises(ValueError, match="chain"):
        serve_lockstep(tree, (1, 2), cache=CACHE)
    assert serve_lockstep(Settings(), (), cache=CACHE) == []


# ------------------------------------------------------------------------------------- teeth


class _NextBlock(RequestCache):
    """A cache whose draft uniforms are one block late: the off-by-one a lockstep could make."""

    def __init__(self) -> None:
        super().__init__()
        real = self.uniforms

        def late(seed: int, n: int, k: int, stream: Stream) -> Any:
            grid = real(seed, n + 1, k, stream)
            return grid[1:] if stream == Stream.DRAFT else real(seed, n, k, stream)

        self.uniforms = late


TEETH = [Settings(), Settings(match=0.2, k=6), Settings(greedy=True, match=0.1)]


@pytest.mark.parametrize("s", TEETH)
def test_teeth_a_lockstep_one_block_off_in_its_uniforms_is_caught(s: Settings) -> None:
    seeds = ensemble_seeds(s.seed, 8)
    broken = serve_lockstep(s, seeds, cache=_NextBlock())
    if s.greedy:  # greedy drafts ignore their uniforms: the same paths, rightly
        assert broken == _one_by_one(s, seeds)
    else:
        assert broken != _one_by_one(s, seeds)


def test_teeth_a_lockstep_that_repairs_from_p_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Settings(match=0.3)
    seeds = ensemble_seeds(s.seed, 8)
    monkeypatch.setattr(witness.lockstep, "_residual", lambda p, q: p.copy())
    assert serve_lockstep(s, seeds, cache=CACHE) != _one_by_one(s, seeds)


def test_teeth_an_alpha_one_ulp_off_is_caught() -> None:
    s = Settings(match=0.3, tokens=12)
    seeds = ensemble_seeds(s.seed, 2)
    good = serve_lockstep(s, seeds, cache=CACHE)
    nudged = [
        ServedPath(
            p.target_passes,
            p.draft_passes,
            tuple(float(np.nextafter(a, 2.0)) if i == 1 else a for i, a in enumerate(p.alphas)),
            p.first_alpha,
            p.scored,
        )
        for p in good
    ]
    assert nudged != _one_by_one(s, seeds)
    assert good == _one_by_one(s, seeds)


def test_the_request_on_screen_leaves_its_laws_in_the_shared_cache() -> None:
    # Its trace and k sweep read the same contexts: the lockstep keeps no laws, so the first
    # request is served alone on the memo's cache.
    memo = ServedPaths(RequestCache(), 64)
    s = Settings(match=0.41, tokens=16)
    requests = [s.model_copy(update={"seed": seed}) for seed in ensemble_seeds(s.seed, 4)]
    assert memo.many(requests) == [serve_path(r, cache=CACHE) for r in requests]
    on_screen = RequestCache()
    serve_path(requests[0], cache=on_screen)
    assert memo.cache.sizes()["laws"] == on_screen.sizes()["laws"] > 0
