"""The chain's compiled serve loop (witness.serve.chain) is the rule as plainly as it reads.

Every chain request is served by one loop: the request on screen, every seeded request of
an ensemble, every policy of a race. Held bit for bit to the numpy loops of
tests/witness/reference_loops.py (a `Law` per drafted position, `verify_unchecked` per
block):

- every seed's `ServedPath` from `serve_chains` equals `reference_path`'s (passes, every α as
  the same float, the first α, the scored pairs), over the chain's settings;
- the request on screen: every block's drafts, p(x), q(x), α, uniforms, result and the exact
  TV at each position are the reference's;
- every race policy (uniforms keyed by output position, stop rules) is `reference_race`'s,
  the oracle's broken twin included;
- `serve_ensemble` gives the same `Ensemble` one by one, together, or through the app's memo;
- teeth: a loop one block off in its uniforms, one that repairs from p, and an α one ulp off
  are each caught.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.witness.reference_loops import reference_blocks, reference_path, reference_race
from tests.witness.strategies import PROPERTY
from witness.core.keys import Stream
from witness.core.modes import mode_of
from witness.core.settings import SEED_MAX, Settings
from witness.core.trace import ServedPath
from witness.judge.adaptive import POLICIES, Policy, _grid, _race_on
from witness.judge.ensemble import ensemble_seeds, serve_ensemble
from witness.methods.block import is_chain
from witness.models.cache import RequestCache
from witness.serve import chain
from witness.serve.chain import serve_chains, serve_record
from witness.serve.paths import ServedPaths, serve_paths
from witness.serve.request import serve_path, serve_request

CACHE = RequestCache()  # results never depend on it: shared to keep the examples cheap
CHAIN = settings(PROPERTY, max_examples=120)

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


def _reference(s: Settings, seeds: tuple[int, ...], **kw: Any) -> list[ServedPath]:
    return [reference_path(s.model_copy(update={"seed": seed}), CACHE, **kw) for seed in seeds]


def _same_bits(got: ServedPath, want: ServedPath) -> None:
    assert got == want
    # Equal floats, not close ones: the same bits, α by α.
    assert [a.hex() for a in got.alphas] == [a.hex() for a in want.alphas]
    assert got.first_alpha.hex() == want.first_alpha.hex()


@CHAIN
@given(chains, st.integers(1, 4))
def test_every_seed_is_the_reference_loops_path_exactly(s: Settings, n: int) -> None:
    if s.tokens == 256:
        n = 1  # the longest request, kept cheap
    seeds = ensemble_seeds(s.seed, n)
    for got, want in zip(serve_chains(s, seeds, cache=CACHE), _reference(s, seeds), strict=True):
        _same_bits(got, want)
    _same_bits(serve_path(s, cache=CACHE), reference_path(s, CACHE))


NAMED = [
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
]


@pytest.mark.parametrize("s", NAMED)
def test_a_full_ensemble_is_every_request_served_by_the_reference(s: Settings) -> None:
    seeds = ensemble_seeds(s.seed, 32)
    assert serve_chains(s, seeds, cache=CACHE) == _reference(s, seeds)


@settings(PROPERTY, max_examples=60)
@given(chains)
def test_the_request_on_screen_is_the_reference_loops_request(s: Settings) -> None:
    trace = serve_request(s, cache=RequestCache())
    blocks = reference_blocks(s, CACHE)
    accept = CACHE.uniforms(s.seed, s.tokens, s.k, Stream.ACCEPT)
    final = CACHE.uniforms(s.seed, s.tokens, 1, Stream.FINAL)[:, 0]
    assert len(trace.blocks) == len(blocks)
    mode = mode_of(s.verify, s.repair)
    tvs = []
    for b, (got, want) in enumerate(zip(trace.blocks, blocks, strict=True)):
        assert got.result == want.result
        assert [d.token for d in got.drafts] == want.draft
        for i, (step, law, x) in enumerate(zip(got.drafts, want.laws, want.draft, strict=True)):
            assert step.p.hex() == float(law.p[x]).hex()
            assert step.q.hex() == float(law.q[x]).hex()
            assert step.alpha.hex() == law.alpha.hex()
            assert step.u == float(accept[b, i])
        assert got.u_final == float(final[b])
        tvs.extend(law.tv(mode) for law in want.laws)
    assert trace.check.tv_max == (max(tvs) if tvs else 0.0)
    assert trace.check.tv_mean == (float(np.mean(tvs)) if tvs else 0.0)


RACES = [
    Settings(tokens=40),
    Settings(match=0.2, k=3, tokens=33, seed=4),
    Settings(match=0.9, k=12, tokens=64, greedy=True),
    Settings(verify=False, k=5, tokens=20),
    Settings(repair=False, match=0.4, tokens=30),
    Settings(draft_source="adversary", match=0.05, tokens=80),
    Settings(tokens=1),
    Settings(tokens=2),
]


@pytest.mark.parametrize("s", RACES)
@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_is_the_reference_race(policy: Policy, s: Settings) -> None:
    grid = _grid(s.seed, s.tokens)
    assert _race_on(policy, s, grid) == reference_race(policy, s, grid, CACHE)


@pytest.mark.parametrize("s", [RACES[0], RACES[1], RACES[5]])
def test_the_oracles_broken_twin_is_the_references_twin(s: Settings) -> None:
    grid = _grid(s.seed, s.tokens)
    twin = _race_on("oracle", s, grid, peek=True)
    assert twin == reference_race("oracle", s, grid, CACHE, peek=True)
    assert twin != _race_on("oracle", s, grid)  # it does change what is served


@settings(PROPERTY, max_examples=40)
@given(chains, st.sampled_from(POLICIES))
def test_any_chains_race_is_the_reference_race(s: Settings, policy: Policy) -> None:
    if s.tokens == 256:
        s = s.model_copy(update={"tokens": 50})
    grid = _grid(s.seed, s.tokens)
    assert _race_on(policy, s, grid) == reference_race(policy, s, grid, CACHE)


def test_the_kernels_are_compiled_before_any_request() -> None:
    # Explicit signatures: compiled (or loaded from disk) at import. A call of another type
    # is refused rather than compiled on a learner's request.
    for kernel in (chain.serve_kernel, chain.block_kernel):
        assert len(kernel.signatures) == 1
    with pytest.raises(TypeError):
        chain.block_kernel(*([0] * 23))


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
def test_the_ensemble_is_the_reference_loops_ensemble(s: Settings) -> None:
    one = partial(reference_path, cache=CACHE) if is_chain(s) else partial(serve_path, cache=CACHE)
    before = serve_ensemble(s, cache=CACHE, path=one)
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
def test_any_chains_ensemble_is_the_reference_loops_ensemble(s: Settings, n: int) -> None:
    if s.tokens == 256:
        n = 1
    before = serve_ensemble(s, n, path=partial(reference_path, cache=CACHE))
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


def test_only_chains_are_served_by_the_chain() -> None:
    tree = Settings(tree_width=2, k=2)
    assert not is_chain(tree)
    with pytest.raises(ValueError, match="chain"):
        serve_chains(tree, (1, 2), cache=CACHE)
    with pytest.raises(ValueError, match="chain"):
        serve_record(tree, (1,), CACHE)
    assert serve_chains(Settings(), (), cache=CACHE) == []


# ------------------------------------------------------------------------------------- teeth


class _NextBlock(RequestCache):
    """A cache whose draft uniforms are one block late: the off-by-one a loop could make."""

    def __init__(self) -> None:
        super().__init__()
        real = self.uniforms

        def late(seed: int, n: int, k: int, stream: Stream) -> Any:
            grid = real(seed, n + 1, k, stream)
            return grid[1:] if stream == Stream.DRAFT else real(seed, n, k, stream)

        self.uniforms = late


TEETH = [Settings(), Settings(match=0.2, k=6), Settings(greedy=True, match=0.1)]


@pytest.mark.parametrize("s", TEETH)
def test_teeth_a_loop_one_block_off_in_its_uniforms_is_caught(s: Settings) -> None:
    seeds = ensemble_seeds(s.seed, 8)
    broken = serve_chains(s, seeds, cache=_NextBlock())
    if s.greedy:  # greedy drafts ignore their uniforms: the same paths, rightly
        assert broken == _reference(s, seeds)
    else:
        assert broken != _reference(s, seeds)


@pytest.mark.parametrize("s", [Settings(match=0.3), Settings(match=0.5, k=8, tokens=100)])
def test_teeth_a_loop_that_repairs_from_p_is_caught(s: Settings) -> None:
    seeds = ensemble_seeds(s.seed, 8)
    assert serve_chains(s, seeds, cache=CACHE) != _reference(s, seeds, repair_from_p=True)


def test_teeth_an_alpha_one_ulp_off_is_caught() -> None:
    s = Settings(match=0.3, tokens=12)
    seeds = ensemble_seeds(s.seed, 2)
    good = serve_chains(s, seeds, cache=CACHE)
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
    assert nudged != _reference(s, seeds)
    assert good == _reference(s, seeds)
