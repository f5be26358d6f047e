"""Adaptive draft length: the policies raced on one request, what must hold.

- every policy's accounting adds up (tokens, target passes, draft passes, priced cost);
- the oracle emits fixed k = 16's text with no more draft passes, the heuristic follows
  `next_k_heuristic`, confidence stops at the first token q gives less than 0.4;
- recovery brings a draft that never agrees back to plain-decoding speed over many seeds,
  where a fixed k is slower than plain decoding;
- each policy keeps p: the first two tokens of a short request have the target's joint law
  (a seeded chi-square over 20 000 position-keyed requests), and the broken twins, repair
  off and an oracle that peeks, fail it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from tests.witness.joint_law import joint_cells
from witness import RequestCache, Settings, next_k_heuristic
from witness.core.distributions import sample_from_cdf
from witness.core.keys import Stream, uniforms
from witness.cost.costing import costing
from witness.judge.adaptive import (
    CONFIDENCE_THRESHOLD,
    K_MAX,
    POLICIES,
    Policy,
    PolicyRun,
    _Grid,
    _grid,
    _race_on,
    race,
    race_ensemble,
    raced_chain,
)
from witness.models.fit import chi_square_against
from witness.models.laws import context_pair
from witness.models.lm import tiny_models

CACHE = RequestCache()  # results never depend on it: shared to keep the examples cheap
ACCOUNTING = hyp_settings(deadline=None, max_examples=40, derandomize=True)

request_settings = st.builds(
    Settings,
    match=st.sampled_from([0.0, 0.3, 0.6, 0.9, 1.0]),
    k=st.integers(1, 16),
    draft_cost=st.sampled_from([0.0, 0.1, 0.5]),
    verify=st.booleans(),
    repair=st.booleans(),
    greedy=st.booleans(),
    seed=st.integers(0, 10_000),
    tokens=st.integers(1, 40),
    draft_source=st.sampled_from(["model", "adversary", "lookup"]),
    machine=st.sampled_from(["custom", "custom", "h100"]),
)


def _check_accounting(s: Settings, r: PolicyRun) -> None:
    cost = costing(s)
    assert sum(r.emitted) == s.tokens == len(r.output)
    assert r.draft_passes == sum(r.drafted)
    assert r.target_passes == (r.blocks if s.verify else 0) == len(r.scored)
    if s.verify:
        assert r.scored == tuple(d + 1 for d in r.drafted)
    priced = sum(cost.verify(x) for x in r.scored) + cost.c * r.draft_passes
    assert r.cost == pytest.approx(priced, rel=1e-12, abs=1e-12)
    if r.cost > 0:
        assert r.speedup == pytest.approx(s.tokens / r.cost)
    else:
        assert r.speedup is None
    room = s.tokens
    for planned, drafted, accepted, emitted in zip(
        r.planned, r.drafted, r.accepted, r.emitted, strict=True
    ):
        assert 0 <= accepted <= drafted <= min(planned, room - 1 if s.verify else room)
        assert 1 <= emitted <= (drafted + 1 if s.verify else drafted)
        room -= emitted


@ACCOUNTING
@given(request_settings)
def test_every_policy_accounting_adds_up(s: Settings) -> None:
    result = race(s)
    raced = result.raced
    for r in result.runs:
        _check_accounting(raced, r)
    # The oracle is fixed k = 16 without the drafts past a rejection.
    fixed16 = _race_on("fixed", raced.model_copy(update={"k": K_MAX}), _grid(s.seed, s.tokens))
    oracle = result.run("oracle")
    assert oracle.output == fixed16.output
    assert oracle.draft_passes <= fixed16.draft_passes
    assert oracle.target_passes == fixed16.target_passes


@ACCOUNTING
@given(request_settings)
def test_the_heuristic_follows_next_k_and_fixed_keeps_k(s: Settings) -> None:
    result = race(s)
    h = result.run("heuristic")
    assert h.planned[0] == s.k
    for b in range(h.blocks - 1):
        assert h.planned[b + 1] == min(K_MAX, next_k_heuristic(h.planned[b], h.accepted[b]))
    assert set(result.run("fixed").planned) == {s.k}


def _replayed_drafts(s: Settings, r: PolicyRun) -> list[list[int]]:
    """Each block's drafted tokens, drawn again from q with the position-keyed uniforms."""
    models = tiny_models()
    prompt, _ = models.encode(s.prompt)
    grid = _grid(s.seed, s.tokens)
    start, blocks = 0, []
    for drafted, emitted in zip(r.drafted, r.emitted, strict=True):
        before, prev = context_pair(models, prompt + list(r.output[:start]))
        xs = []
        for i in range(drafted):
            law = CACHE.law(s.match, s.greedy, before, prev, s.draft_source == "adversary")
            x = sample_from_cdf(law.q, law.q_cdf, float(grid.draft[start + i]))
            xs.append(float(law.q[x]))
            before, prev = prev, x
        blocks.append(xs)
        start += emitted
    return blocks


@pytest.mark.parametrize("seed", [8, 9, 10])
@pytest.mark.parametrize("match", [0.2, 0.6])
def test_confidence_stops_at_the_first_unsure_token(seed: int, match: float) -> None:
    s = Settings(seed=seed, match=match)
    r = race(s).run("confidence")
    room = s.tokens
    for qs, emitted in zip(_replayed_drafts(s, r), r.emitted, strict=True):
        limit = min(K_MAX, room - 1)
        # Every token but the last was sure; the last was unsure, or the limit was reached.
        assert all(q >= CONFIDENCE_THRESHOLD for q in qs[:-1])
        assert len(qs) == limit or qs[-1] < CONFIDENCE_THRESHOLD
        room -= emitted


def test_known_small_behaviours() -> None:
    # q = p: every draft stands, the heuristic grows by two a block, recovery never stops.
    same = race(Settings(match=1.0, tokens=48, k=2))
    h = same.run("heuristic")
    assert h.planned[:4] == (2, 4, 6, 8)
    assert _fields(same.run("recovery")) | {"policy": "heuristic"} == _fields(h)
    assert all(a == d for a, d in zip(h.accepted, h.drafted, strict=True))
    # One token: a single plain target pass for every policy (nothing to draft).
    for r in race(Settings(tokens=1)).runs:
        assert (r.drafted, r.target_passes, r.cost) == ((0,), 1, 1.0)
    # A tree is raced as its chain, prompt lookup with the draft model.
    tree = Settings(tree_width=2, k=3)
    assert race(tree).raced == raced_chain(tree) == tree.model_copy(update={"tree_width": 1})
    assert raced_chain(Settings(draft_source="lookup")).draft_source == "model"


def _fields(r: PolicyRun) -> dict[str, object]:
    return {name: getattr(r, name) for name in r.__dataclass_fields__}


ADVERSARY = Settings(draft_source="adversary", match=0.0, draft_cost=0.1, k=4, tokens=96)


def test_recovery_brings_a_draft_that_never_agrees_back_to_plain_speed() -> None:
    e = race_ensemble(ADVERSARY, 16)
    assert e.speedup("fixed").ci_high < 1.0  # speculation is slower than plain decoding
    assert e.speedup("recovery").mean >= 0.99
    assert e.speedup("recovery").mean > e.speedup("heuristic").mean
    r = race(ADVERSARY).run("recovery")
    assert r.plain_steps > 0.8 * ADVERSARY.tokens  # it stopped speculating, and probed
    assert 1 in r.planned[2:]


# ------------------------------------------------------- the joint law of the first two tokens

N = 20_000
N_TEETH = 10_000  # the broken twins fail at p < 1e-9 with this many
LEVEL = 1e-3
SHORT = Settings(tokens=3, k=4, match=0.6)


def _first_two(policy: Policy, s: Settings, n: int, *, peek: bool = False) -> np.ndarray:
    """The first two tokens of ``n`` requests, each keyed by its own seed (one vectorised
    call per stream for all of them)."""
    seeds = np.arange(n)[:, None] + 1_000
    t = np.arange(s.tokens + 1)[None, :]
    draft, accept, final = (
        uniforms(seeds, t, 0, x) for x in (Stream.DRAFT, Stream.ACCEPT, Stream.FINAL)
    )
    out = np.empty((n, 2), dtype=np.intp)
    for i in range(n):
        run = _race_on(policy, s, _Grid(draft[i], accept[i], final[i]), peek=peek)
        out[i] = run.output[:2]
    return out


def _p_values(
    policy: Policy, s: Settings, n: int = N, *, peek: bool = False
) -> tuple[float, float]:
    """The chi-square p-values of the first token against p at the prompt, and of the first
    two against p(x0)·p(x1 | x0)."""
    models = tiny_models()
    prompt, _ = models.encode(s.prompt)
    pairs = _first_two(policy, s, n, peek=peek)
    p0 = models.target_row(*context_pair(models, prompt))
    first = np.bincount(pairs[:, 0], minlength=p0.size)
    counts, law = joint_cells(pairs, prompt)
    return chi_square_against(first, p0).p_value, chi_square_against(counts, law).p_value


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_keeps_p(policy: Policy) -> None:
    first, joint = _p_values(policy, SHORT)
    assert first > LEVEL
    assert joint > LEVEL


def test_teeth_repair_off_loses_p() -> None:
    assert _p_values("oracle", SHORT.model_copy(update={"repair": False}), N_TEETH)[1] < LEVEL


def test_teeth_an_oracle_that_peeks_loses_p() -> None:
    # It stops before the token it knows will be rejected and samples a bonus from p there:
    # the token at that position is p's only on the draws where the draft would be rejected.
    assert _p_values("oracle", SHORT, N_TEETH, peek=True)[0] < LEVEL
