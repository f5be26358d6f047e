"""The mean over seeded requests when a request's speedup is near the top of float range."""

from __future__ import annotations

import numpy as np

from witness import Settings
from witness.judge.adaptive import race_ensemble
from witness.judge.ensemble import estimate


def test_huge_finite_speedups_are_averaged_without_overflow() -> None:
    # 1/c at c = 2.2e-308 (the smallest normal float): finite, but 32 of them sum to inf.
    values = np.full(32, 4.49423284e307)
    e = estimate(values)
    assert e.mean == 4.49423284e307 and e.sd == 0.0 and np.isfinite(e.ci_high)


def test_teeth_the_plain_sum_overflows() -> None:
    with np.errstate(over="raise"), np.testing.assert_raises(FloatingPointError):
        np.full(32, 4.49423284e307).mean()


def test_other_estimates_are_the_plain_mean_and_sd_bit_for_bit() -> None:
    v = np.random.default_rng(3).random(32) * 3
    e = estimate(v)
    assert e.mean == float(v.mean()) and e.sd == float(v.std(ddof=1))


def test_the_race_at_the_smallest_draft_cost_with_verify_off() -> None:
    # What schemathesis sent /api/race (the suite turns the overflow warning into an error).
    s = Settings(verify=False, draft_cost=2.2250738585072014e-308, tokens=4, k=1, match=0.0)
    seeded = race_ensemble(s)
    assert all(np.isfinite(e.mean) and e.mean > 1e300 for _, e in seeded.speedups)
