"""The formula beside the ensemble's measured mean: where the mean sits against it, and why.

The formula takes one α at every position and counts whole blocks of k drafts. The measured
mean agrees with it where its interval holds the formula's value (or, for an ensemble whose
members all agree, where the two differ below display precision); otherwise it sits under or
over it, because α varies from position to position (past `ALPHA_SPREAD` between its 10th and
90th percentile) or because the request's last block drafts only what is left.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from witness.core.settings import Settings
from witness.cost.costing import costing
from witness.judge.ensemble import Ensemble
from witness.serve.accounting import draft_cost, speedup_expected

# A spread of α over positions past which the formula's one-α assumption is named as the
# reason for a gap (below it the assumption is close to true).
ALPHA_SPREAD = 0.05
# Below display precision a mean with no spread equals the formula.
AGREE = 5e-3

GapSide = Literal["agrees", "under", "over"]
GapCause = Literal["alpha_varies", "last_block"]


@dataclass(frozen=True, slots=True)
class FormulaGap:
    """The measured mean against the formula at the station's α."""

    formula: float  # the formula's speedup at the station's α and the current k
    side: GapSide  # where the measured mean sits
    cause: GapCause | None  # why it does not agree; None where it agrees
    alpha_low: float  # α's 10th and 90th percentile over the positions
    alpha_high: float


def formula_speedup(ens: Ensemble, s: Settings) -> float | None:
    """The formula at the station's α: the 'expected' speedup quoted everywhere.

    For a tree, α is the acceptance per level (one draft pass each, whatever the width);
    prompt lookup runs no draft model, so its draft passes cost nothing."""
    return speedup_expected(ens.alpha, s.k, draft_cost(s), verify=s.verify)


def formula_gap_of(ens: Ensemble, s: Settings) -> FormulaGap | None:
    """Where the measured mean sits against the formula; None with verify off (nothing
    verified, no formula to compare) or where the formula is unbounded."""
    if not s.verify:
        return None
    est, formula = ens.speedup(costing(s)), formula_speedup(ens, s)
    if formula is None:
        return None
    within = est.ci_low <= formula <= est.ci_high
    if within or est.sd == 0.0 and abs(est.mean - formula) < AGREE:
        return FormulaGap(formula, "agrees", None, ens.alpha_low, ens.alpha_high)
    side: GapSide = "under" if est.mean < formula else "over"
    varies = ens.alpha_high - ens.alpha_low > ALPHA_SPREAD
    cause: GapCause = "alpha_varies" if varies else "last_block"
    return FormulaGap(formula, side, cause, ens.alpha_low, ens.alpha_high)
