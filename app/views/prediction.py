"""Step 03, the prediction: the choices, what was chosen, and the status line."""

from __future__ import annotations

from dataclasses import dataclass

from app.contract.route import Intervention
from app.state.query import INTERVENTION_LABELS, StationState


@dataclass(frozen=True, slots=True)
class PredictionView:
    options: tuple[tuple[str, str], ...]
    chosen: str
    summary: str


def prediction_view(state: StationState) -> PredictionView:
    options = tuple((i.value, label) for i, label in INTERVENTION_LABELS.items())
    pred = state.prediction
    if pred is None:
        return PredictionView(options, "", "No prediction yet")
    if pred.intervention is Intervention.SKIP:
        return PredictionView(options, "skip", "Prediction skipped (recorded)")
    return PredictionView(
        options, pred.intervention.value, f"Predicted: {INTERVENTION_LABELS[pred.intervention]}"
    )
