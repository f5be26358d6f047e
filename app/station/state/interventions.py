"""Prediction first: what each intervention does to the instrument when a learner commits.

Recording a prediction snapshots the instrument (the `base` of the prediction) and applies
the chosen intervention, so the evidence the learner then sees is the intervention's own.
The move is never silent: the prediction step names it ("k 4 → 8") and offers to undo it
(app/station/views/prediction.py); a skip applies nothing.
"""

from __future__ import annotations

from app.contract.route import Intervention
from witness import Settings
from witness.core.settings import field_bounds

K_MAX = int(field_bounds("k")["max"])

# The one setting each intervention moves (a skip moves none).
MOVES: dict[Intervention, str] = {
    Intervention.RAISE_MATCH: "match",
    Intervention.LENGTHEN_K: "k",
    Intervention.CHEAPEN_DRAFT: "draft_cost",
    Intervention.SKIP_VERIFY: "verify",
    Intervention.SKIP_REPAIR: "repair",
}


def apply_intervention(s: Settings, intervention: Intervention) -> Settings:
    """The settings after one clear step of the intervention (staying inside every range)."""
    match intervention:
        case Intervention.RAISE_MATCH:
            return s.model_copy(update={"match": round(min(1.0, s.match + 0.3), 2)})
        case Intervention.LENGTHEN_K:
            return s.model_copy(update={"k": min(K_MAX, s.k * 2)})
        case Intervention.CHEAPEN_DRAFT:
            return s.model_copy(update={"draft_cost": round(s.draft_cost / 4, 2)})
        case Intervention.SKIP_VERIFY:
            return s.model_copy(update={"verify": False})
        case Intervention.SKIP_REPAIR:
            return s.model_copy(update={"repair": False})
        case Intervention.SKIP:
            return s
