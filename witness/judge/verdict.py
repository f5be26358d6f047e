"""The verdicts a state's ensemble gives: its speedup's numbers (`verdict_of`), the savings
gate (`savings_gate`), and the served request with them, as JSON (`judged_trace`).

The request on screen is one draw; "faster" and "pays" are said of its state's ensemble
(`witness.judge.expected.ensemble_of`). `judged_trace` puts both in one answer, for the JSON API's
``/api/trace`` and the command line's ``json`` view, so a client reads the verdict's
numbers and how they were estimated beside the example they judge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Literal

from witness.core.settings import Settings
from witness.core.theory import break_even_cost
from witness.core.trace import RequestTrace
from witness.cost.costing import costing
from witness.judge.ensemble import CONFIDENCE, Ensemble, Estimate, Estimator, verdict_on_one


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the state's verdicts rest on: the ensemble's speedup over plain decoding (a
    ratio of means, priced as the state prices passes) with its interval, tokens per target
    pass pooled over it, its size, and its estimator. A speedup is null where it is
    unbounded (no target pass and free drafts)."""

    estimator: Estimator  # exact-given-text: expectations given target texts; served: requests
    n: int  # texts or requests
    texts: int | None  # distinct target texts (one when greedy); null for served requests
    speedup: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    tokens_per_pass: float | None
    alpha: float  # the station's α over the same ensemble

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def verdict_of(ensemble: Ensemble, settings: Settings) -> Verdict:
    """The ensemble's verdict numbers at the settings' price."""
    est = ensemble.speedup(costing(settings))
    return Verdict(
        estimator=ensemble.estimator,
        n=len(ensemble.seeds),
        texts=ensemble.texts if ensemble.estimator == "exact-given-text" else None,
        speedup=_finite(est.mean),
        ci_low=_finite(est.ci_low),
        ci_high=_finite(est.ci_high),
        confidence=CONFIDENCE,
        tokens_per_pass=ensemble.tokens_per_pass,
        alpha=ensemble.alpha,
    )


GateStatus = Literal["holds", "fails", "undecided", "void"]
# Why the gate is what it is: judged on the ensemble's speedup, or decided before it.
GateReason = Literal[
    "judged", "verify off", "verify off, copying", "nothing drafted", "nothing copied"
]


@dataclass(frozen=True, slots=True)
class SavingsGate:
    """The savings gate at a state: whether speculation beats plain decoding beyond noise
    over the state's ensemble, priced as the state prices passes, and the draft costs at
    which the current k breaks even. The station's words for it are the app's; the
    judgement is here, one rule for every panel that states it."""

    status: GateStatus  # void: nothing was verified, so no speedup of the target is earned
    reason: GateReason
    speedup: Estimate | None  # the ensemble's, where the gate is judged on it
    break_even_measured: float | None  # where the ensemble's speedup is 1; None for lookup
    break_even_formula: float | None  # the formula's at the station's α and the current k


_STATUS: dict[str, GateStatus] = {
    "pays": "holds",
    "does not pay": "fails",
    "within noise": "undecided",
}


def savings_gate(ensemble: Ensemble, settings: Settings) -> SavingsGate:
    """Holds, fails or is undecided as the speedup's interval lies above, below or around 1;
    void with verification off; fails when nothing was drafted (or copied) at all."""
    s, lookup = settings, settings.draft_source == "lookup"
    if not s.verify:
        return SavingsGate(
            "void", "verify off, copying" if lookup else "verify off", None, None, None
        )
    if not ensemble.drafted_positions:
        reason: GateReason = "nothing copied" if lookup and s.tokens > 1 else "nothing drafted"
        return SavingsGate("fails", reason, None, None, None)
    est = ensemble.speedup(costing(s))
    formula = float(break_even_cost(ensemble.alpha, s.k))
    # Prompt lookup runs no draft model: its draft cost does not enter, so nothing breaks even.
    measured = None if lookup else ensemble.break_even_cost()
    return SavingsGate(_STATUS[verdict_on_one(est)], "judged", est, measured, formula)


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


@dataclass(frozen=True, slots=True)
class JudgedTrace(RequestTrace):
    """A `RequestTrace` and its state's `Verdict`: every field of the trace, then
    ``verdict`` (its `to_dict` is the trace's, with the verdict last)."""

    verdict: Verdict


def judged_trace(trace: RequestTrace, verdict: Verdict) -> JudgedTrace:
    """``trace`` with ``verdict`` beside it."""
    kept = {f.name: getattr(trace, f.name) for f in fields(RequestTrace)}
    return JudgedTrace(**kept, verdict=verdict)
