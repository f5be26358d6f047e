"""The station's contexts: one view model per thing the routes render.

Each fragment computes what its partials show and nothing else:

- `live_view`: the evidence fragment, whose out-of-band parts are every other part of the
  page that shows the state (object, invariant, carry-in, classroom, Next panel); the sweep
  and the slice are placeholders there that fetch themselves once the evidence has settled;
- `station_view`: the whole page, which is the live view plus the prediction form, the
  step-through and (once a prediction is recorded) the sweep and the slice drawn inline;
- `block_fragment`, `sweep_fragment` and `slice_fragment`: the worked block, the sweep and
  the slice alone.

Every builder is pure: the state and the app's `Witness` in, a frozen view model out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.classes.contract import CLASS_INTERVENTIONS, CLASS_PRESET_BY_ID
from app.config import AppSettings
from app.station.services import SLICE_BLOCKS, Witness
from app.station.state.query import PREDICTION_FIELDS, FieldProblem, StationState
from app.station.views.batch_chart import BatchView, batch_view
from app.station.views.carry import CarryRow, carry_rows
from app.station.views.classroom import ClassroomView, classroom_view
from app.station.views.controls import ControlsView, controls_view
from app.station.views.evidence import (
    BlockDetail,
    ChainComparison,
    EvidenceView,
    beside_chain,
    block_detail,
    evidence_view,
)
from app.station.views.gates import (
    InvariantView,
    VerdictView,
    invariant_view,
    narration,
    verdict_view,
)
from app.station.views.judgement import savings
from app.station.views.prediction import PredictionView, prediction_view
from app.station.views.race import RacePanel, race_panel
from app.station.views.readout import ReadoutView, readout_view
from app.station.views.slice import SliceView, slice_view
from app.station.views.stepthrough import StepThroughView, selected_block, stepthrough_view
from app.station.views.sweep_chart import SweepChart, sweep_chart
from app.words import say
from witness import RequestTrace, Settings
from witness.core.settings import SEED_MAX
from witness.methods.block import is_chain

SLICE_NOTE = say("controls.slice.note", blocks=f"{SLICE_BLOCKS:,}".replace(",", " "))


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
class SweepLinks:
    sweep: str  # "" where there is nothing to fetch (no prediction recorded yet)


@dataclass(frozen=True, slots=True)
class SliceLinks:
    slice_page: str
    slice_fragment: str


@dataclass(frozen=True, slots=True)
class LiveView:
    """What the evidence fragment shows: the evidence and every part that follows the state."""

    state: StationState
    settings: Settings
    links: Links
    controls: ControlsView
    prediction: PredictionView
    evidence: EvidenceView | None
    invariant: InvariantView | None
    verdict: VerdictView | None
    readout: ReadoutView | None
    narration: str
    problems: tuple[FieldProblem, ...]
    trace: RequestTrace
    # State each form does not edit itself, carried as hidden fields so nothing is lost.
    carry_instrument: dict[str, str]
    carry: tuple[CarryRow, ...]
    classroom: ClassroomView
    sweep: SweepChart | None  # None: a placeholder that fetches the sweep
    # Speculation against batch size, the sweep's batch axis: drawn with the sweep, so None
    # wherever the sweep is (a slider's answer leaves both to the sweep's placeholder).
    batch: BatchView | None
    slice: SliceView | None  # None: a placeholder (or the button that runs the slice)
    slice_note: str
    race: RacePanel  # the policy race: drawn on a whole page with race=1, else its button

    @property
    def revealed(self) -> bool:
        return self.evidence is not None


@dataclass(frozen=True, slots=True)
class StationView:
    """The whole page: the live view (once revealed, with the sweep, the slice and the race
    drawn in place) and what only the page shows: the prediction form's carried state, the
    step-through and the class banner's form."""

    live: LiveView
    carry_prediction: dict[str, str]
    stepthrough: StepThroughView
    class_send: dict[str, str] | None  # the class banner's no-JavaScript send form


@dataclass(frozen=True, slots=True)
class SweepFragment:
    sweep: SweepChart | None
    batch: BatchView | None
    links: SweepLinks


@dataclass(frozen=True, slots=True)
class SliceFragment:
    state: StationState
    slice: SliceView | None
    revealed: bool
    links: SliceLinks
    carry_instrument: dict[str, str]
    slice_note: str


def live_view(
    state: StationState, app: AppSettings, witness: Witness, *, draw_detail: bool | None = None
) -> LiveView:
    """``draw_detail``: draw the worked block and the comparison with the chain in place, or
    leave placeholders that fetch them (`block_fragment`, `beside_fragment`). By default a
    fragment that selects a block (a click in the request's text) draws them, and a slider's
    fragment (which names no block) leaves the placeholders."""
    s = state.settings
    if draw_detail is None:
        draw_detail = state.block is not None
    trace = witness.trace(s)
    selected = selected_block(state, trace)
    evidence = invariant = verdict = readout = None
    alpha: float | None = None  # the station's α, once the ensemble is judged
    if state.prediction is not None:
        # One link per block: the canonical query without a block, then `block=N` (it is
        # always last), instead of re-encoding the whole state for every block. The script
        # asks for the same query's evidence fragment (the lane's data-fragment).
        page = state.url(block=None)
        sep = "&" if "?" in page else "?"
        hrefs = tuple(f"{page}{sep}block={b.index}" for b in trace.blocks)
        ens = witness.ensemble(s)
        alpha = ens.alpha
        # The savings judgement is made once: the evidence and the gates both show it.
        judged = savings(ens, s)
        evidence = evidence_view(
            trace,
            s,
            selected,
            witness.quick_check(s),
            hrefs,
            ens,
            beside=witness.beside_chain(s) if draw_detail else None,
            judged=judged,
            pending=None if draw_detail else (state.url("/station/block"), state.url()),
            pending_beside=(
                None if draw_detail or is_chain(s) else (state.url("/station/beside"), state.url())
            ),
        )
        invariant = invariant_view(trace, ens, s, judged=judged)
        readout = readout_view(trace, ens, invariant, s)
        cmp = witness.compare(state.prediction.base, s)
        verdict = verdict_view(state.prediction, cmp, trace, s)
    return LiveView(
        state=state,
        settings=s,
        links=links_view(state, app),
        controls=controls_view(s, state.problems),
        prediction=prediction_view(state, alpha),
        evidence=evidence,
        invariant=invariant,
        verdict=verdict,
        readout=readout,
        narration=narration(trace.blocks[selected], s) if evidence is not None else "",
        problems=state.problems,
        trace=trace,
        carry_instrument=_carry_instrument(state),
        carry=carry_rows(state),
        classroom=classroom_view(state),
        sweep=None,
        batch=None,
        slice=None,
        slice_note=SLICE_NOTE,
        race=race_panel(state, witness, draw=False),
    )


def station_view(state: StationState, app: AppSettings, witness: Witness) -> StationView:
    live = live_view(state, app, witness, draw_detail=True)
    s = state.settings
    if live.revealed:  # drawn inline on a whole page; the fragments fetch them afterwards
        live = replace(
            live,
            sweep=sweep_chart(witness.sweep(s), s),
            batch=batch_view(s, witness.ensemble(s).alpha),
            slice=_slice(state, witness),
            race=race_panel(state, witness, draw=True),
        )
    return StationView(
        live,
        carry_prediction=_without(state.query(), (*PREDICTION_FIELDS, "block")),
        stepthrough=stepthrough_view(state, live.trace, selected_block(state, live.trace)),
        class_send=class_send(state),
    )


_SAID = {None: "", True: "yes", False: "no"}


def class_send(state: StationState) -> dict[str, str] | None:
    """The fields of the class banner's form for a learner without JavaScript
    (app/classes/learner.py): the recorded prediction on one of the class's questions
    and the address to come back to; None when there is nothing a class could take."""
    p, question = state.prediction, state.options.preset
    if p is None or question not in CLASS_PRESET_BY_ID or p.intervention not in CLASS_INTERVENTIONS:
        return None
    return {
        "question": question,
        "intervention": p.intervention.value,
        "faster": _SAID[p.expect_faster],
        "kept": _SAID[p.expect_kept],
        "back": state.url(),
    }


@dataclass(frozen=True, slots=True)
class BlockFragment:
    detail: BlockDetail | None  # None before a prediction: the evidence is still locked


def block_fragment(state: StationState, witness: Witness) -> BlockFragment:
    """The worked block alone: the selected block's drafts, ending and pictures."""
    if state.prediction is None:
        return BlockFragment(None)
    s = state.settings
    trace = witness.trace(s)
    block = trace.blocks[selected_block(state, trace)]
    return BlockFragment(block_detail(block, s, len(trace.prompt_words)))


@dataclass(frozen=True, slots=True)
class BesideFragment:
    comparison: ChainComparison | None  # None: the chain itself, or before a prediction
    locked: bool  # before a prediction the evidence is still locked


def beside_fragment(state: StationState, witness: Witness) -> BesideFragment:
    """This method beside its chain twin alone, fetched once a slider's evidence has settled."""
    if state.prediction is None:
        return BesideFragment(None, locked=True)
    s = state.settings
    beside = witness.beside_chain(s)
    if beside is None:
        return BesideFragment(None, locked=False)
    return BesideFragment(
        beside_chain(witness.trace(s), s, witness.ensemble(s), beside), locked=False
    )


def sweep_fragment(state: StationState, witness: Witness) -> SweepFragment:
    """The draft-length sweep alone, with its batch axis on a machine; it is evidence, so it
    stays behind the prediction too."""
    if state.prediction is None:
        return SweepFragment(None, None, SweepLinks(""))
    s = state.settings
    return SweepFragment(
        sweep_chart(witness.sweep(s), s),
        batch_view(s, witness.ensemble(s).alpha),
        SweepLinks(state.url("/station/sweep")),
    )


def slice_fragment(state: StationState, witness: Witness) -> SliceFragment:
    """The evaluation slice alone, with the instrument's carried state (which says slice=1)."""
    return SliceFragment(
        state=state,
        slice=_slice(state, witness) if state.prediction is not None else None,
        revealed=state.prediction is not None,
        links=_slice_links(state),
        carry_instrument=_carry_instrument(state),
        slice_note=SLICE_NOTE,
    )


def links_view(state: StationState, app: AppSettings) -> Links:
    s = state.settings
    next_seed = min(s.seed + 1, SEED_MAX)
    next_state = replace(state, settings=s.model_copy(update={"seed": next_seed}), block=None)
    asked = _slice_links(state)
    return Links(
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
        slice_page=asked.slice_page,
        slice_fragment=asked.slice_fragment,
    )


def _slice_links(state: StationState) -> SliceLinks:
    asked = replace(state.options, slice=True)
    return SliceLinks(state.url(options=asked), state.url("/station/slice", options=asked))


def _slice(state: StationState, witness: Witness) -> SliceView | None:
    """The slice runs only when the learner asked for it (?slice=1)."""
    if not state.options.slice:
        return None
    s = state.settings
    return slice_view(witness.slice(s), s, witness.ensemble(s).alpha)


def _carry_instrument(state: StationState) -> dict[str, str]:
    return _without(state.query(), (*Settings.model_fields, "block"))


def _without(query: dict[str, str], names: tuple[str, ...]) -> dict[str, str]:
    return {k: v for k, v in query.items() if k not in names}
