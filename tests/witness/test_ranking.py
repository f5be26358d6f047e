"""The race's ranking (witness/judge/ranking.py): which runnable policy leads over the seeded
requests, and whether that lead is more than noise.

- the leader is the highest runnable mean, the runner-up the next (the oracle, a bound, is
  never ranked), and the difference is leader minus runner-up, never negative;
- "ahead" needs the paired interval to exclude 0 and a lead of at least 1% of the runner-up;
  "the same" is every request costing both the same; otherwise "within noise";
- teeth: a ranking by the means alone, ignoring the paired interval, calls the defaults'
  leader ahead where the function finds it within noise; and a lead whose interval excludes
  0 but falls under the 1% margin is not "ahead";
- the modes: one token drafts nothing anywhere, verify off with a free draft leaves nothing
  finite to rank.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from witness import Settings
from witness.judge.adaptive import POLICIES, Policy, RaceEnsemble, race_ensemble
from witness.judge.ensemble import RELATIVE_MARGIN, Estimate, paired_difference, ratio_estimate
from witness.judge.ranking import RUNNABLE, Ranking, rank, standing

RANKED_STATES = [
    {},
    {"seed": 7},
    {"match": 0.6, "k": 8},
    {"match": 0.3, "draft_cost": 0.3},
    {"match": 0.9, "k": 2},
    {"draft_source": "adversary", "match": 0.0, "draft_cost": 0.1},
    {"repair": False},
    {"verify": False},
]


def _ranked(**kw: object) -> tuple[RaceEnsemble, Ranking]:
    ens = race_ensemble(Settings(**kw))  # type: ignore[arg-type]
    return ens, rank(ens)


def _by_mean_alone(ens: RaceEnsemble) -> str:
    """The broken twin: the higher mean is a lead, whatever the paired interval says."""
    first, second = sorted(RUNNABLE, key=lambda p: -ens.speedup(p).mean)[:2]
    return "ahead" if ens.speedup(first).mean > ens.speedup(second).mean else "same"


def _ensemble(tokens: int, costs: dict[Policy, list[float]]) -> RaceEnsemble:
    """A race's ensemble from each policy's cost per seed (every policy not named costs
    what plain decoding does)."""
    per = {p: costs.get(p, [float(tokens)] * len(next(iter(costs.values())))) for p in POLICIES}
    n = len(per["fixed"])
    return RaceEnsemble(
        tuple(range(n)),
        tuple((p, ratio_estimate(tokens, np.asarray(per[p]))) for p in POLICIES),
        tuple((p, tuple(tokens / c if c else math.inf for c in per[p])) for p in POLICIES),
        tuple((p, tuple(per[p])) for p in POLICIES),
        tokens,
    )


@pytest.mark.parametrize("kw", RANKED_STATES)
def test_the_leader_is_the_highest_runnable_mean_and_leads_by_a_non_negative_difference(
    kw: dict[str, object],
) -> None:
    ens, rk = _ranked(**kw)
    assert rk.mode == "ranked" and rk.n == len(ens.seeds)
    means = {p: ens.speedup(p).mean for p in RUNNABLE}
    assert rk.leader != "oracle" and rk.runner_up not in ("oracle", rk.leader)
    assert rk.leader_mean == means[rk.leader] == max(means.values())
    others = [m for p, m in means.items() if p != rk.leader]
    assert rk.runner_up_mean == means[rk.runner_up] == max(others)
    assert rk.oracle_mean == ens.speedup("oracle").mean
    assert rk.oracle_beats_leader == (rk.oracle_mean > rk.leader_mean)
    faster = [standing(ens.speedup(p)) in ("faster", "unbounded") for p in RUNNABLE]
    assert rk.none_faster == (not any(faster))
    if rk.gap in ("ahead", "within_noise"):
        assert rk.difference is not None and rk.interval is not None
        # The paired difference of two ratios of means is the difference of the means.
        assert rk.difference == pytest.approx(rk.leader_mean - rk.runner_up_mean, rel=1e-9)
        assert rk.difference >= 0.0
        low, high = rk.interval
        assert low <= rk.difference <= high
        lead = low > 0.0 and rk.difference >= RELATIVE_MARGIN * rk.runner_up_mean
        assert (rk.gap == "ahead") == lead
    elif rk.gap == "same":
        assert ens.costs(rk.leader) == ens.costs(rk.runner_up)
        assert rk.difference is None and rk.interval is None


def test_a_lead_beyond_noise_is_ahead() -> None:
    # A draft that agrees three times in ten, priced at 0.3: stopping at an unsure token
    # beats the heuristic's long drafts on the same seeds, well past the interval.
    ens, rk = _ranked(match=0.3, draft_cost=0.3)
    assert (rk.leader, rk.runner_up, rk.gap) == ("confidence", "heuristic", "ahead")
    assert rk.interval is not None and rk.interval[0] > 0.0
    assert rk.leader_mean > rk.runner_up_mean > 1.0
    assert _by_mean_alone(ens) == "ahead"  # the twin agrees where the lead is real


def test_the_defaults_leader_is_within_noise_and_the_mean_alone_would_call_it_ahead() -> None:
    ens, rk = _ranked()
    assert rk.leader_mean > rk.runner_up_mean  # a higher mean...
    assert rk.gap == "within_noise"  # ...that the paired interval does not separate from 0
    assert rk.interval is not None
    assert rk.interval[0] < 0.0 < rk.interval[1]
    # Teeth: the twin that ranks by the means alone claims a lead here.
    assert _by_mean_alone(ens) == "ahead" != rk.gap


def test_a_lead_under_the_margin_is_within_noise_even_when_its_interval_excludes_0() -> None:
    # Every request: the leader 0.2% cheaper than the runner-up, with a little paired noise.
    tokens, rng = 100, np.random.default_rng(5)
    base = 50.0 + rng.normal(0.0, 0.5, 32)
    ens = _ensemble(tokens, {"fixed": list(base * 0.998), "heuristic": list(base)})
    rk = rank(ens)
    assert (rk.leader, rk.runner_up) == ("fixed", "heuristic")
    diff, half = paired_difference(tokens, np.asarray(base), np.asarray(base * 0.998))
    assert diff - half > 0.0  # the interval excludes 0...
    assert diff < RELATIVE_MARGIN * rk.runner_up_mean  # ...but the lead is under 1%
    assert rk.gap == "within_noise"
    # Ten times the lead clears the margin.
    wide = _ensemble(tokens, {"fixed": list(base * 0.98), "heuristic": list(base)})
    assert rank(wide).gap == "ahead"


def test_every_request_costing_both_the_same_is_the_same() -> None:
    ens, rk = _ranked(match=0.9, k=2)
    assert rk.gap == "same"
    assert ens.costs(rk.leader) == ens.costs(rk.runner_up)
    assert rk.leader_mean == rk.runner_up_mean


def test_one_token_drafts_nothing_anywhere() -> None:
    ens, rk = _ranked(tokens=1)
    assert rk.mode == "none_drafts"
    assert all(standing(ens.speedup(p)) == "same" for p in POLICIES)
    assert rk.none_faster and not rk.oracle_beats_leader


def test_verify_off_with_a_free_draft_leaves_nothing_finite_to_rank() -> None:
    _, rk = _ranked(verify=False, draft_cost=0.0)
    assert rk.mode == "all_unbounded"
    assert math.isinf(rk.leader_mean) and rk.gap == "uncompared" and rk.difference is None
    assert not rk.none_faster  # unbounded counts as faster than plain decoding


def test_an_unbounded_side_is_not_compared() -> None:
    # Only the leader cost nothing: there is no finite difference to state.
    ens = _ensemble(10, {"fixed": [0.0, 0.0], "heuristic": [5.0, 6.0]})
    rk = rank(ens)
    assert rk.mode == "ranked" and rk.leader == "fixed" and rk.gap == "uncompared"
    assert rk.interval is None


def test_the_adversary_is_led_by_recovery_and_nothing_beats_plain_decoding() -> None:
    _, rk = _ranked(draft_source="adversary", match=0.0, draft_cost=0.1)
    assert rk.leader == "recovery" and rk.gap == "ahead"
    assert rk.none_faster
    assert not rk.oracle_beats_leader  # knowing every rejection in advance cannot help here


def test_standing_against_plain_decoding() -> None:
    def est(mean: float, lo: float, hi: float, low: float = 0.5, high: float = 2.0) -> Estimate:
        return Estimate(mean, 0.1, low, high, lo, hi, 32)

    assert standing(est(1.5, 1.2, 1.8)) == "faster"
    assert standing(est(0.8, 0.7, 0.9)) == "slower"
    assert standing(est(1.005, 1.001, 1.009)) == "within_noise"  # under the 1% margin
    assert standing(est(0.995, 0.991, 0.999)) == "within_noise"
    assert standing(est(1.1, 0.9, 1.3)) == "within_noise"  # the interval holds 1×
    assert standing(est(1.0, 1.0, 1.0, 1.0, 1.0)) == "same"
    assert standing(est(float("inf"), float("inf"), float("inf"))) == "unbounded"
