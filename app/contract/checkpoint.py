"""This station's route-memory checkpoint, computed by the witness for any state.

The browser saves what `GET /api/checkpoint?…` returns under `tsl.route.speculative-decoding`
(docs/route-memory.md), so a saved checkpoint is exactly what the witness says and the server
stores nothing. The shape is validated against docs/route-memory.schema.json by the tests.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.contract.route import MEMORY_VERSION, OBJECT_ID, STATION_ID
from app.station.services import Witness
from app.station.state.query import StationState
from app.station.views.evidence import first_rejection_text
from app.station.views.gates import Gate, invariant_view, verdict_view
from app.station.views.judgement import optimum_sentence, savings
from app.station.views.pricing import cost_short
from witness import Settings
from witness.core.theory import break_even_alpha
from witness.core.trace import RequestTrace
from witness.cost.costing import any_k_pays, price, priced_optimum
from witness.judge.ensemble import Ensemble
from witness.judge.sweep import K_MAX


def checkpoint_entry(
    state: StationState, witness: Witness, now: datetime | None = None
) -> dict[str, Any]:
    """The whole localStorage entry (envelope plus checkpoint) for this state."""
    saved = (now or datetime.now(UTC)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {
        "version": MEMORY_VERSION,
        "station": STATION_ID,
        "savedAt": saved,
        "checkpoint": checkpoint(state, witness),
    }


def checkpoint(state: StationState, witness: Witness) -> dict[str, Any]:
    s = state.settings
    trace = witness.trace(s)
    t = trace.totals
    ens = witness.ensemble(s)
    gates = invariant_view(trace, ens, s)
    return {
        "object": OBJECT_ID,
        "prediction": _prediction(state, trace, witness),
        "acceptedPrefix": {
            "tokens": t.tokens,
            "acceptedDrafts": t.accepted_drafts,
            "rejectedDrafts": t.rejected_drafts,
            "targetPasses": t.target_passes,
            "draftPasses": t.draft_passes,
            "baselineTargetPasses": t.baseline_target_passes,
            "meanAlpha": round(t.mean_alpha, 6),
            "speedupMeasured": _round(t.speedup_measured),
            "speedupExpected": _round(t.speedup_expected),
            "msSpeculative": round(t.ms_speculative, 3),
            "msBaseline": round(t.ms_baseline, 3),
            "firstRejection": first_rejection_text(trace),
        },
        "invariant": {
            "mode": trace.check.mode,
            "greedy": trace.check.greedy,
            "keepsTarget": trace.check.keeps_target,
            "tvMax": round(trace.check.tv_max, 12),
            "correctness": gates.correctness.sentence,
            "savings": gates.savings.sentence,
        },
        "speedupBoundary": speedup_boundary(s, ens, gates.savings),
        "nextRepair": next_repair(s, trace, ens),
        "settings": s.model_dump(),
        "url": state.url(),
    }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _prediction(
    state: StationState, trace: RequestTrace, witness: Witness
) -> dict[str, Any] | None:
    pred = state.prediction
    if pred is None:
        return None
    verdict = verdict_view(pred, witness.compare(pred.base, state.settings), trace, state.settings)
    return {
        "intervention": pred.intervention.value,
        "expectFaster": pred.expect_faster,
        "expectKept": pred.expect_kept,
        "held": {"speed": verdict.held_speed, "correctness": verdict.held_correctness},
        "sentence": verdict.sentence,
    }


def speedup_boundary(s: Settings, ens: Ensemble, gate: Gate) -> dict[str, Any]:
    """Where the current k stops paying for this workload: the gate's numbers, saved.

    ``breakEvenAlpha`` is the acceptance rate the current k needs at this draft cost (at
    k = 1 it is c; longer drafts need more), ``meanAlpha`` the station's α, ``pays`` the
    savings gate's verdict (``gate``: correctness first, then the seeded requests),
    ``optimalK`` the formula's best k
    within the slider's range (the sentence says when a better one lies past it).
    """
    optimum = priced_optimum(s, ens.alpha, K_MAX)
    sweep_words = optimum_sentence(ens.alpha, s, optimum)
    return {
        "draftCost": round(price(s), 6),
        "breakEvenAlpha": round(break_even_alpha(s.k, price(s)), 6),
        "meanAlpha": round(ens.alpha, 6),
        "optimalK": optimum.k,
        "pays": gate.status == "holds",
        "sentence": f"{gate.sentence} {sweep_words}",
    }


def next_repair(s: Settings, trace: RequestTrace, ens: Ensemble) -> str:
    """The one change the witness suggests next, correctness first."""
    alpha = ens.alpha
    if not s.verify:
        return "Turn target verification back on: without it the output is the draft's q."
    if not trace.check.keeps_target:
        return "Turn sampling repair back on: only the residual keeps the target distribution."
    optimum = priced_optimum(s, alpha, K_MAX)
    status = savings(ens, s).status
    if not any_k_pays(s, alpha):
        return (
            f"Cheapen the draft or raise the match: no draft length pays while α ≤ c "
            f"(α = {alpha:.2f}, {cost_short(s, 1)})."
        )
    best = optimum.k
    if s.k > best:
        return (
            f"Shorten k toward {best}, the formula's optimum: past it every extra draft is "
            "paid for and mostly thrown away."
        )
    if s.k < best:
        return (
            f"Lengthen k toward {best}: a longer draft spreads each target pass over more tokens."
        )
    if status != "holds":
        return (
            f"Cheapen the draft or raise the match: at k = {s.k} the savings are not shown "
            f"over the state's ensemble (α = {alpha:.2f}, {cost_short(s)})."
        )
    return "Keep these settings and falsify the claim under the evaluation slice (station 09)."
