"""Which draft-length policy a race's seeded requests rank first, and whether that is noise.

A race (`witness.judge.adaptive`) serves every policy on the same seeds, so two policies are
compared as two settings are (`witness.judge.ensemble.compare`): the difference of their
speedups (ratios of means) over the paired requests, with the delta method's interval. The
leader is the runnable policy with the highest mean (the hindsight oracle is a bound, never
a policy a server can run); it is *ahead* of the runner-up only when that interval excludes
0 and the difference is at least ``RELATIVE_MARGIN`` of the runner-up's speedup, *the same*
when every request cost both the same, and *within noise* otherwise. A higher mean alone is
not a lead: on 32 requests two policies whose means differ by a few hundredths are usually
the same policy seen through different draws.

Each policy is also judged against plain decoding (1×) by the ensemble's rule (`standing`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from witness.judge.adaptive import POLICIES, Policy, RaceEnsemble
from witness.judge.ensemble import RELATIVE_MARGIN, Estimate, paired_difference

# A policy against plain decoding over the seeded requests.
Standing = Literal["faster", "slower", "within_noise", "same", "unbounded"]
# What a race's requests allow to be said: nothing drafted anywhere (every policy is plain
# decoding), every policy free (verify off, a free draft: no finite speedup to rank), or a
# ranking of the runnable policies.
RankingMode = Literal["none_drafts", "all_unbounded", "ranked"]
# The leader against the runner-up on the same seeds; "uncompared" where either speedup is
# unbounded, so there is no finite difference to state.
Gap = Literal["ahead", "same", "within_noise", "uncompared"]
RUNNABLE: tuple[Policy, ...] = tuple(p for p in POLICIES if p != "oracle")


def standing(e: Estimate) -> Standing:
    """A speedup against plain decoding (1×) over the seeded requests, by the ensemble's rule:
    faster or slower only when the interval excludes 1× and the mean is at least
    RELATIVE_MARGIN away; the same when every request cost exactly what plain decoding does."""
    if math.isinf(e.mean):
        return "unbounded"
    if e.low == e.high == 1.0:
        return "same"
    if e.ci_low > 1.0 and e.mean >= 1.0 + RELATIVE_MARGIN:
        return "faster"
    if e.ci_high < 1.0 and e.mean <= 1.0 - RELATIVE_MARGIN:
        return "slower"
    return "within_noise"


@dataclass(frozen=True, slots=True)
class Ranking:
    """The runnable policies ranked by their speedup over a race's seeded requests."""

    mode: RankingMode
    n: int  # seeded requests
    leader: Policy  # the highest mean a server can reach (ties: the first in POLICIES)
    runner_up: Policy
    leader_mean: float
    runner_up_mean: float
    gap: Gap
    # Leader minus runner-up (speedups, paired on the same seeds) and half its interval at
    # CONFIDENCE; None where the gap is "same" or "uncompared".
    difference: float | None
    half_width: float | None
    oracle_mean: float
    oracle_beats_leader: bool  # knowing each rejection in advance is worth something here
    none_faster: bool  # no runnable policy is faster than plain decoding (nor unbounded)

    @property
    def interval(self) -> tuple[float, float] | None:
        """The difference's interval, where there is one."""
        if self.difference is None or self.half_width is None:
            return None
        return self.difference - self.half_width, self.difference + self.half_width


def rank(ens: RaceEnsemble) -> Ranking:
    """Rank the race's runnable policies over its seeded requests (see the module's rule)."""
    est = {p: ens.speedup(p) for p in POLICIES}
    means = {p: e.mean for p, e in est.items()}
    # Sorted by mean, highest first; the sort is stable, so a tie keeps POLICIES' order.
    leader, runner_up = sorted(RUNNABLE, key=lambda p: -means[p])[:2]
    gap, difference, half = _gap(ens, leader, runner_up)
    return Ranking(
        mode=_mode(est),
        n=len(ens.seeds),
        leader=leader,
        runner_up=runner_up,
        leader_mean=means[leader],
        runner_up_mean=means[runner_up],
        gap=gap,
        difference=difference,
        half_width=half,
        oracle_mean=means["oracle"],
        oracle_beats_leader=means["oracle"] > means[leader],
        none_faster=not any(standing(est[p]) in ("faster", "unbounded") for p in RUNNABLE),
    )


def _mode(est: dict[Policy, Estimate]) -> RankingMode:
    if all(e.low == e.high == 1.0 for e in est.values()):
        return "none_drafts"
    if all(math.isinf(e.mean) for e in est.values()):
        return "all_unbounded"
    return "ranked"


def _gap(
    ens: RaceEnsemble, leader: Policy, runner_up: Policy
) -> tuple[Gap, float | None, float | None]:
    """The leader against the runner-up on the same seeds: paired, as every comparison is."""
    if not (math.isfinite(ens.speedup(leader).mean) and math.isfinite(ens.speedup(runner_up).mean)):
        return "uncompared", None, None
    a, b = np.asarray(ens.costs(leader)), np.asarray(ens.costs(runner_up))
    if np.array_equal(a, b):
        return "same", None, None
    difference, half = paired_difference(ens.tokens, b, a)
    ahead = difference - half > 0.0 and difference >= RELATIVE_MARGIN * ens.speedup(runner_up).mean
    return ("ahead" if ahead else "within_noise"), difference, half
