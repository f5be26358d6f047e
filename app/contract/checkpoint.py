"""This station's route-memory checkpoint, computed by the witness for any state.

The browser saves what `GET /api/checkpoint?…` returns under `tsl.route.speculative-decoding`
(docs/route-memory.md), so a saved checkpoint is exactly what the witness says and the server
stores nothing. The shape is validated against docs/route-memory.schema.json by the tests.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.contract.route import MEMORY_VERSION, OBJECT_ID, STATION_ID
from app.services import Witness
from app.state.query import StationState
from app.views.evidence import first_rejection_text
from app.views.gates import invariant_view, verdict_view
from witness import Settings, optimal_k
from witness.settings import field_bounds
from witness.theory import speculation_pays
from witness.trace import RequestTrace


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
    gates = invariant_view(trace, s)
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
        "speedupBoundary": speedup_boundary(s, t.mean_alpha),
        "nextRepair": next_repair(s, trace),
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
    verdict = verdict_view(pred, witness.trace(pred.base), trace, state.settings)
    return {
        "intervention": pred.intervention.value,
        "expectFaster": pred.expect_faster,
        "expectKept": pred.expect_kept,
        "held": {"speed": verdict.held_speed, "correctness": verdict.held_correctness},
        "sentence": verdict.sentence,
    }


def speedup_boundary(s: Settings, alpha: float) -> dict[str, Any]:
    """Where speculation stops paying for this workload: alpha <= c, whatever k."""
    k_max = int(field_bounds("k")["max"])
    best = optimal_k(alpha, s.draft_cost, k_max)
    pays = speculation_pays(alpha, s.draft_cost)
    if pays:
        sentence = (
            f"Speculation pays while α > c = {s.draft_cost:.2f}; at α = {alpha:.2f} "
            f"the best draft length is k = {best}."
        )
    else:
        sentence = (
            f"Speculation does not pay here: α = {alpha:.2f} ≤ c = {s.draft_cost:.2f}, "
            "so every draft length costs more than plain decoding."
        )
    return {
        "draftCost": s.draft_cost,
        "breakEvenAlpha": s.draft_cost,
        "meanAlpha": round(alpha, 6),
        "optimalK": best,
        "pays": pays,
        "sentence": sentence,
    }


def next_repair(s: Settings, trace: RequestTrace) -> str:
    """The one change the witness suggests next, correctness first."""
    alpha = trace.totals.mean_alpha
    if not s.verify:
        return "Turn target verification back on: without it the output is the draft's q."
    if not trace.check.keeps_target:
        return "Turn sampling repair back on: only the residual keeps the target distribution."
    if not speculation_pays(alpha, s.draft_cost):
        return (
            f"Cheapen the draft or raise the match: speculation pays only while α > c "
            f"(α = {alpha:.2f}, c = {s.draft_cost:.2f})."
        )
    best = optimal_k(alpha, s.draft_cost, int(field_bounds("k")["max"]))
    if s.k > best:
        return (
            f"Shorten k to {best}: past the optimum every extra draft is paid for "
            "and mostly thrown away."
        )
    if s.k < best:
        return f"Lengthen k to {best}: a longer draft spreads each target pass over more tokens."
    return "Keep these settings and falsify the claim under the evaluation slice (station 09)."
