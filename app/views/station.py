"""The whole station's context: one object the page template and every fragment read from."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from app.config import AppSettings
from app.contract.route import Intervention
from app.state.query import (
    INTERVENTION_LABELS,
    PREDICTION_FIELDS,
    FieldProblem,
    StationState,
)
from app.views.carry import CarryRow, carry_rows
from app.views.classroom import ClassroomView, classroom_view
from app.views.controls import ControlsView, controls_view
from app.views.evidence import EvidenceView, default_block, evidence_view
from app.views.gates import InvariantView, VerdictView, invariant_view, narration, verdict_view
from app.views.slice import SliceView, slice_view
from app.views.stepthrough import StepThroughView, stepthrough_view
from app.views.sweep_chart import SweepChart, sweep_chart
from witness import RequestTrace, Settings, serve_request
from witness.evaluation import FirstTokenCheck, first_token_check
from witness.request import Mode, mode_of
from witness.settings import SEED_MAX

# The live evidence samples a quick slice of the current mode; the full three-mode slice
# (100 000 blocks each) is the Next panel's job. 10 000 blocks keep a slider move in budget.
QUICK_SLICE_BLOCKS = 10_000


@lru_cache(maxsize=256)
def cached_trace(settings: Settings) -> RequestTrace:
    """Settings are frozen and hashable; dragging back over a value costs nothing."""
    return serve_request(settings)


@lru_cache(maxsize=256)
def quick_check(settings: Settings) -> FirstTokenCheck:
    # Only what the slice depends on is kept, so a change of cost or TPOT is a cache hit.
    key = Settings(
        match=settings.match,
        k=settings.k,
        seed=settings.seed,
        greedy=settings.greedy,
        prompt=settings.prompt,
    )
    return _quick(key, mode_of(settings.verify, settings.repair))


@lru_cache(maxsize=256)
def _quick(key: Settings, mode: Mode) -> FirstTokenCheck:
    return first_token_check(key, mode, QUICK_SLICE_BLOCKS)


@dataclass(frozen=True, slots=True)
class Links:
    page: str
    serving: str
    cockpit: str
    next_station: str
    predict: str
    clear_prediction: str
    next_request: str
    next_request_fragment: str
    evaluation: str
    worksheet: str
    sweep: str
    slice_page: str
    slice_fragment: str


@dataclass(frozen=True, slots=True)
class PredictionView:
    options: tuple[tuple[str, str], ...]
    chosen: str
    summary: str


@dataclass(frozen=True, slots=True)
class StationView:
    state: StationState
    settings: Settings
    links: Links
    controls: ControlsView
    prediction: PredictionView
    evidence: EvidenceView | None
    invariant: InvariantView | None
    verdict: VerdictView | None
    narration: str
    problems: tuple[FieldProblem, ...]
    trace: RequestTrace
    # State each form does not edit itself, carried as hidden fields so nothing is lost.
    carry_instrument: dict[str, str]
    carry_prediction: dict[str, str]
    carry: tuple[CarryRow, ...]
    classroom: ClassroomView
    stepthrough: StepThroughView
    sweep: SweepChart | None  # drawn on the full page once the evidence is open
    slice: SliceView | None  # the evaluation slice, when asked for (?slice=1)


def station_view(state: StationState, app: AppSettings, *, with_sweep: bool = True) -> StationView:
    s = state.settings
    trace = cached_trace(s)
    selected = state.block if state.block is not None and state.block < len(trace.blocks) else None
    selected = default_block(trace) if selected is None else selected
    revealed = state.prediction is not None
    next_seed = min(s.seed + 1, SEED_MAX)
    next_state = replace(state, settings=s.model_copy(update={"seed": next_seed}), block=None)
    evidence = invariant = verdict = None
    if revealed:
        # One link per block: the canonical query without a block, then `block=N` (it is
        # always last), instead of re-encoding the whole state for every block.
        page, fragment = state.url(block=None), state.url("/station/evidence", block=None)
        sep = "&" if "?" in page else "?"
        hrefs = tuple(
            (f"{page}{sep}block={b.index}", f"{fragment}{sep}block={b.index}") for b in trace.blocks
        )
        evidence = evidence_view(trace, s, selected, quick_check(s), hrefs)
        invariant = invariant_view(trace, s)
        assert state.prediction is not None
        before = cached_trace(state.prediction.base)
        verdict = verdict_view(state.prediction, before, trace, s)
    return StationView(
        state=state,
        settings=s,
        links=Links(
            page=state.url(),
            serving=app.serving_url or "/serving",
            cockpit=app.cockpit_url or "/route",
            next_station=app.next_station_url,
            predict="/station/predict",
            clear_prediction=state.url(prediction=None),
            next_request=next_state.url(),
            next_request_fragment=next_state.url("/station/evidence"),
            # The API takes the settings alone, not the view's state.
            evaluation=StationState(s, None, None).url("/api/evaluation"),
            worksheet=state.url("/station/worksheet"),
            sweep=state.url("/station/sweep"),
            slice_page=state.url(options=replace(state.options, slice=True)),
            slice_fragment=state.url("/station/slice", options=replace(state.options, slice=True)),
        ),
        controls=controls_view(s, state.problems),
        prediction=_prediction_view(state),
        evidence=evidence,
        invariant=invariant,
        verdict=verdict,
        narration=narration(trace.blocks[selected], s) if revealed else "",
        problems=state.problems,
        trace=trace,
        carry_instrument=_without(state.query(), (*Settings.model_fields, "block")),
        carry_prediction=_without(state.query(), (*PREDICTION_FIELDS, "block")),
        carry=carry_rows(state),
        classroom=classroom_view(state),
        stepthrough=stepthrough_view(state, trace, selected),
        sweep=sweep_chart(s) if revealed and with_sweep else None,
        slice=slice_view(s) if revealed and with_sweep and state.options.slice else None,
    )


def _without(query: dict[str, str], names: tuple[str, ...]) -> dict[str, str]:
    return {k: v for k, v in query.items() if k not in names}


def _prediction_view(state: StationState) -> PredictionView:
    options = tuple((i.value, label) for i, label in INTERVENTION_LABELS.items())
    pred = state.prediction
    if pred is None:
        return PredictionView(options, "", "No prediction yet")
    if pred.intervention is Intervention.SKIP:
        return PredictionView(options, "skip", "Prediction skipped (recorded)")
    return PredictionView(
        options, pred.intervention.value, f"Predicted: {INTERVENTION_LABELS[pred.intervention]}"
    )
