"""The formula's verdicts the station words (`witness.judge.optimum`, `witness.judge.formula_gap`):
each optimum mode against the formula itself, on a grid and on a machine, and where the
measured mean sits against the formula. The rules are computed here from the closed forms,
never read back from the module under test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from witness import Settings
from witness.core.theory import draft_length_optimum, expected_speedup
from witness.cost.costing import costing, price, priced_optimum
from witness.judge.expected import ensemble_of
from witness.judge.formula_gap import ALPHA_SPREAD, formula_gap_of, formula_speedup
from witness.judge.optimum import OptimumVerdict, optimum_verdict, priced_speedups

K_MAX = 16
ALPHAS = (0.0, 0.05, 0.2, 0.45, 0.6, 0.8, 0.937, 0.99, 1.0)
COSTS = (0.0, 0.02, 0.05, 0.2, 0.45, 1.0)
GRID = list(itertools.product(ALPHAS, COSTS))


def verdict_at(alpha: float, c: float, k_max: int = K_MAX) -> OptimumVerdict:
    s = Settings(draft_cost=c)
    return optimum_verdict(alpha, s, draft_length_optimum(alpha, c, k_max))


def formula_mode(alpha: float, c: float, k_max: int = K_MAX) -> str:
    """The mode by the formula alone: some k pays exactly when α > c (the k = 1 break-even);
    then the speedup rises with k without end at α = 1 or c = 0; else its best k over a long
    search lies past the slider or within it."""
    if not alpha > c:
        return "none_pays"
    if alpha >= 1.0 or c == 0.0:
        return "unbounded"
    ks = np.arange(1, 4097)
    best = int(ks[np.argmax(np.round(np.asarray(expected_speedup(alpha, ks, c)), 12))])
    return "past_edge" if best > k_max else "within"


@pytest.mark.parametrize(("alpha", "c"), GRID)
def test_each_mode_is_the_formulas(alpha: float, c: float) -> None:
    v = verdict_at(alpha, c)
    assert v.mode == formula_mode(alpha, c)
    assert v.k_max == K_MAX and v.price_k1 == c
    # The best speedup quoted is the formula's at the best k in range, and no k beats it.
    curve = priced_speedups(alpha, Settings(draft_cost=c), K_MAX)
    assert v.best == pytest.approx(float(expected_speedup(alpha, v.k, c)), rel=1e-12)
    assert v.best == pytest.approx(max(curve), rel=1e-9)
    if v.mode == "unbounded":
        assert v.unconstrained is None and v.limit is not None
        assert v.cause == ("certain" if alpha >= 1.0 else "free")
    else:
        assert v.limit is None and v.cause is None


def test_every_mode_is_reached_on_the_grid() -> None:
    assert {verdict_at(a, c).mode for a, c in GRID} == {
        "none_pays",
        "unbounded",
        "past_edge",
        "within",
    }


def test_known_verdicts() -> None:
    well = verdict_at(0.937, 0.05)  # the well-matched preset: its best k is past the slider
    assert (well.mode, well.k, well.unconstrained) == ("past_edge", 16, 18)
    certain = verdict_at(1.0, 0.05)  # every draft accepted: (k + 1) / (k c + 1) → 1 / c
    assert (certain.mode, certain.cause, certain.limit) == ("unbounded", "certain", 20.0)
    free = verdict_at(0.5, 0.0)  # a free draft: 1 + α + α² + … → 1 / (1 − α)
    assert (free.mode, free.cause) == ("unbounded", "free")
    assert free.limit == pytest.approx(2.0)
    inside = verdict_at(0.8, 0.05)
    assert (inside.mode, inside.k, inside.unconstrained) == ("within", 8, 8)
    assert inside.best == pytest.approx(float(expected_speedup(0.8, 8, 0.05)))
    assert verdict_at(0.45, 0.45).mode == "none_pays"  # α = c: k = 1 only breaks even


def test_an_unbounded_optimum_without_a_limit_rises_without_bound() -> None:
    v = verdict_at(1.0, 0.0)
    assert v.mode == "unbounded" and v.limit == float("inf")


def test_on_a_machine_pays_is_judged_against_k_one_s_price() -> None:
    s = Settings(machine="h100", batch=256)
    c, k1 = costing(s).c, price(s, 1)
    assert k1 > c  # the verifying pass's surcharge, spread over one drafted level
    for alpha in (0.5 * (c + k1), 0.95):
        v = optimum_verdict(alpha, s, priced_optimum(s, alpha, K_MAX))
        assert v.price_k1 == k1
        assert (v.mode == "none_pays") == (not alpha > k1)
        assert v.best == pytest.approx(max(priced_speedups(alpha, s, K_MAX)), rel=1e-9)


def test_teeth_pays_by_alpha_above_zero_disagrees() -> None:
    """The wrong rule, "some k pays whenever α > 0", disagrees with the verdict on grid
    states, so the mode test above can fail it."""
    wrong = [(a, c) for a, c in GRID if (a > 0.0) != (verdict_at(a, c).mode != "none_pays")]
    assert wrong
    assert (0.2, 0.45) in wrong


def test_teeth_pays_by_the_bare_c_on_a_machine_disagrees() -> None:
    """On a machine the wrong rule "α > c" (the draft pass alone) calls a draft paying that
    k = 1's price per draft does not pay."""
    s = Settings(machine="h100", batch=256)
    c, k1 = costing(s).c, price(s, 1)
    alpha = 0.5 * (c + k1)
    v = optimum_verdict(alpha, s, priced_optimum(s, alpha, K_MAX))
    assert alpha > c and v.mode == "none_pays"


# ----------------------------------------------------------------------- the formula gap

GAP_STATES = [
    Settings(),
    Settings(k=16, tokens=256, match=0.3),
    Settings(match=1.0, k=8, draft_cost=0.05),
    Settings(repair=False, match=0.9),
    Settings(tokens=2),
]


@pytest.mark.parametrize("s", GAP_STATES)
def test_the_gap_follows_the_interval_and_the_mean(s: Settings) -> None:
    ens = ensemble_of(s)
    gap = formula_gap_of(ens, s)
    formula = formula_speedup(ens, s)
    assert gap is not None and formula is not None and gap.formula == formula
    est = ens.speedup(costing(s))
    inside = est.ci_low <= formula <= est.ci_high
    if inside or est.sd == 0.0 and abs(est.mean - formula) < 5e-3:
        assert gap.side == "agrees" and gap.cause is None
        return
    assert gap.side == ("under" if est.mean < formula else "over")
    varies = ens.alpha_high - ens.alpha_low > ALPHA_SPREAD
    assert gap.cause == ("alpha_varies" if varies else "last_block")


def test_the_gap_takes_sides_somewhere() -> None:
    sides = {g.side for s in GAP_STATES if (g := formula_gap_of(ensemble_of(s), s))}
    assert "agrees" in sides and sides & {"under", "over"}


def test_no_gap_without_verification() -> None:
    s = Settings(verify=False)
    assert formula_gap_of(ensemble_of(s), s) is None
