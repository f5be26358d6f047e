"""Step 03, the prediction: the choices, what was chosen, and what recording it changed.

Recording a prediction applies the chosen intervention to the instrument (the predict route,
app/station/routes/pages.py). That move is shown, never silent: `ChangeView` says what it changed
("Your intervention was applied: k 4 → 8") and links back to the prediction's own settings
(Undo) or forward to the intervention again, as plain links that keep the prediction
recorded. Its sentence follows the instrument, so after a slider move it says how the
instrument now differs from where the prediction was made.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.contract.route import Intervention
from app.station.state.interventions import MOVES, apply_intervention
from app.station.state.query import INTERVENTION_LABELS, RECORDED_FIELDS, StationState
from app.station.views import fmt
from app.words import Sentence, say
from witness import Settings

# Undo and "apply it again" land on the change line itself, so the learner sees it again.
ANCHOR = "#prediction-change"


@dataclass(frozen=True, slots=True)
class ChangeView:
    """What recording the prediction did to the instrument, and the way back."""

    kind: str  # "applied", "undone", "moved", "no-op" or "skip"
    sentence: Sentence
    undo_href: str  # "" where the instrument already stands at the prediction's settings
    undo_label: str
    redo_href: str  # "" where the intervention is applied now, or changes nothing
    redo_label: str


@dataclass(frozen=True, slots=True)
class PredictionView:
    options: tuple[tuple[str, str], ...]
    chosen: str
    summary: Sentence
    change: ChangeView | None  # None while no prediction is recorded
    match_note: Sentence  # what the match is, and the station's α it gives once judged


def match_note(s: Settings, alpha: float | None) -> Sentence:
    """The match is a blend, not a rate: the rate it produces is the station's α, named
    beside it once the state's ensemble is judged (after a prediction)."""
    if alpha is None:
        return say("prediction.match.unjudged")
    return say("prediction.match.judged", match=fmt.setting(s.match), alpha=f"{alpha:.3f}")


def prediction_view(state: StationState, alpha: float | None = None) -> PredictionView:
    """``alpha``: the station's α at the state's settings, once the ensemble is judged."""
    options = tuple((i.value, label) for i, label in INTERVENTION_LABELS.items())
    note = match_note(state.settings, alpha)
    pred = state.prediction
    if pred is None:
        return PredictionView(options, "", say("prediction.summary.none"), None, note)
    change = change_view(state)
    if pred.intervention is Intervention.SKIP:
        return PredictionView(options, "skip", say("prediction.summary.skipped"), change, note)
    return PredictionView(
        options,
        pred.intervention.value,
        say("prediction.summary.predicted", intervention=INTERVENTION_LABELS[pred.intervention]),
        change,
        note,
    )


def change_view(state: StationState) -> ChangeView | None:
    change = _change_view(state)
    pred = state.prediction
    if change is None or pred is None or pred.intervention is not Intervention.CHEAPEN_DRAFT:
        return change
    if state.settings.machine == "custom":
        return change
    # On a machine the slider's c prices nothing: say so beside the move, never silently.
    note = say("prediction.change.machine_price")
    return replace(
        change, sentence=say("prediction.change.noted", change=change.sentence, note=note)
    )


def _change_view(state: StationState) -> ChangeView | None:
    pred = state.prediction
    if pred is None:
        return None
    if pred.intervention is Intervention.SKIP:
        return ChangeView("skip", say("prediction.change.skip"), "", "", "", "")
    base, now = pred.base, state.settings
    applied = apply_intervention(base, pred.intervention)
    step, since = moved(base, applied), moved(base, now)
    back = state.url(settings=base, block=None) + ANCHOR if since else ""
    back_label = say("prediction.link.back", settings=values(since, base))
    again = state.url(settings=applied, block=None) + ANCHOR
    again_label = say("prediction.link.again", step=arrows(step, base, applied))
    if not step:
        name = MOVES[pred.intervention]
        already = say(
            "prediction.change.already", name=_name(name), value=_value(getattr(base, name))
        )
        if not since:
            sentence = say("prediction.change.no_op", already=already)
            return ChangeView("no-op", sentence, "", "", "", "")
        sentence = say(
            "prediction.change.no_op_moved", already=already, moved=arrows(since, base, now)
        )
        return ChangeView("moved", sentence, back, back_label, "", "")
    if not moved(applied, now):
        sentence = say("prediction.change.applied", step=arrows(step, base, applied))
        undo = say("prediction.link.undo", settings=values(step, base))
        return ChangeView("applied", sentence, back, undo, "", "")
    if not since:
        sentence = say("prediction.change.undone", settings=values(step, base))
        return ChangeView("undone", sentence, "", "", again, again_label)
    sentence = say("prediction.change.moved", moved=arrows(since, base, now))
    return ChangeView("moved", sentence, back, back_label, again, again_label)


def moved(before: Settings, after: Settings) -> tuple[str, ...]:
    """The recorded settings (what an intervention acts on, and the drafting) that differ."""
    return tuple(f for f in RECORDED_FIELDS if getattr(before, f) != getattr(after, f))


def arrows(fields: tuple[str, ...], before: Settings, after: Settings) -> str:
    """ "k 4 → 8, repair on → off", naming settings as the verdict does."""
    return ", ".join(
        say(
            "prediction.setting.moved",
            name=_name(f),
            before=_value(getattr(before, f)),
            after=_value(getattr(after, f)),
        )
        for f in fields
    )


def values(fields: tuple[str, ...], s: Settings) -> str:
    """ "k 4, repair on" """
    return ", ".join(_setting(f, s) for f in fields)


def _setting(field: str, s: Settings) -> Sentence:
    return say("prediction.setting.value", name=_name(field), value=_value(getattr(s, field)))


def _name(field: str) -> str:
    return field.replace("_", " ")  # "draft cost 0.10 → 0.03", as in the verdict


def _value(x: object) -> str:
    if isinstance(x, bool):
        return fmt.on_off(x)
    if isinstance(x, float):
        return fmt.setting(x)
    return str(x)
