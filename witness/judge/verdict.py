"""The verdicts a state's ensemble gives: its speedup's numbers (`verdict_of`), the savings
gate (`savings_gate`), the verdict on a speed claim where correctness comes first
(`speed_verdict`), and the served request with them, as JSON (`judged_trace`).

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
from witness.core.trace import DistributionCheck, RequestTrace
from witness.cost.costing import costing
from witness.judge.ensemble import CONFIDENCE, Ensemble, Estimate, Estimator, verdict_on_one

GateStatus = Literal["holds", "fails", "undecided", "void"]
# Why the gate is what it is: judged on the ensemble's speedup, or decided before it.
GateReason = Literal[
    "judged",
    "verify off",
    "verify off, copying",
    "not kept",
    "nothing drafted",
    "nothing copied",
]


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
    # The one verdict on a speed claim (`speed_verdict`): holds / fails / undecided, or void
    # where no speedup of the target is earned, and why (`GateReason`).
    savings: GateStatus = "undecided"
    savings_reason: GateReason = "judged"

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def verdict_of(ensemble: Ensemble, settings: Settings, check: DistributionCheck) -> Verdict:
    """The ensemble's verdict numbers at the settings' price, and the savings gate with
    correctness first (``check``: the exact check of the state's served request), as the
    station and the class reveal state it."""
    est = ensemble.speedup(costing(settings))
    gate = speed_verdict(ensemble, settings, check)
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
        savings=gate.status,
        savings_reason=gate.reason,
    )


@dataclass(frozen=True, slots=True)
class SavingsGate:
    """The savings gate at a state: whether speculation beats plain decoding beyond noise
    over the state's ensemble, priced as the state prices passes, and the draft costs at
    which the current k breaks even. The station's words for it are the app's; the
    judgement is here, one rule for every panel that states it."""

    status: GateStatus  # void: no speedup of the target is earned (`unearned` says why)
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


def unearned(settings: Settings, check: DistributionCheck) -> GateReason | None:
    """Why no speed at this state is a speedup of the target, before any speed is judged;
    None where a speedup may be earned.

    With verification off no target pass checks the draft, so the speed is the draft model's
    own (or text copying's), whatever the output's law. With verification on but the exact
    check finding the emitted law away from p (repair off, typical acceptance), the speed is
    that of another distribution, not a speedup of the target."""
    if not settings.verify:
        return "verify off, copying" if settings.draft_source == "lookup" else "verify off"
    if not check.keeps_target:
        return "not kept"
    return None


def speed_verdict(ensemble: Ensemble, settings: Settings, check: DistributionCheck) -> SavingsGate:
    """The verdict on a speed claim at a state: the savings gate with correctness first.

    Void (not earned) where `unearned` names a reason; otherwise the savings gate judged on
    the ensemble's speedup. ``check`` is the exact distribution check of the state's served
    request. The station's gates and the live class's reveal both take their verdict here,
    so the two never disagree on the same state."""
    why = unearned(settings, check)
    if why is not None:
        return SavingsGate("void", why, None, None, None)
    return savings_gate(ensemble, settings)


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
