"""Classroom controls: presets, the share link, the view options and a live class, each one
click away.

Prediction first holds here too. A preset whose title or hint tells the outcome
(`Preset.names_answer`) is offered only once a prediction is recorded, and so is its hint
when a link opens at it. The share link opens at the prediction: by default it is the state
without the prediction (no pred, expect_*, base), so a class that opens it predicts first;
the full URL, prediction and evidence included, is offered beside it for a sharer who means
to show the evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from app.contract.route import WORKLOAD_FIELDS
from app.station.state.presets import BY_ID, PRESETS
from app.station.state.query import PREDICTION_FIELDS, StationState
from witness import Settings


@dataclass(frozen=True, slots=True)
class PresetLink:
    id: str
    title: str
    href: str
    current: bool


@dataclass(frozen=True, slots=True)
class CurrentPreset:
    title: str
    hint: str
    question: str
    modified: bool  # the instrument has moved away from the preset since it was chosen


@dataclass(frozen=True, slots=True)
class ViewLink:
    label: str
    href: str
    pressed: bool


@dataclass(frozen=True, slots=True)
class ClassroomView:
    presets: tuple[PresetLink, ...]  # the chips offered now
    later: int  # presets held back until a prediction is recorded (they name the outcome)
    current: CurrentPreset | None  # None also while the current preset is held back
    current_held: bool  # the link opened at a held-back preset: its title and hint wait
    share_url: str  # opens at the prediction: the state without it
    share_full_url: str  # the state with the prediction and its evidence; "" without one
    share_drops: tuple[str, ...]  # the query parameters share_url leaves out
    views: tuple[ViewLink, ...]
    body_class: str
    live_class: str = "/class"  # where an instructor opens a live class (app/classes/pages.py)


def preset_state(state: StationState, preset_id: str) -> StationState:
    """The state a preset link opens: the preset's instrument on this workload.

    A recorded prediction is kept, so the verdict keeps comparing against where the learner
    predicted from; the selected block and the step-through start afresh. A preset that names
    a workload field itself (prompt lookup needs its repetitive prompt) sets that field; the
    rest of the workload is the learner's.
    """
    preset = BY_ID[preset_id]
    workload = {f: getattr(state.settings, f) for f in WORKLOAD_FIELDS}
    settings = Settings(**(workload | preset.values))
    return replace(
        state,
        settings=settings,
        block=None,
        options=replace(state.options, preset=preset_id, sub=None, slice=False),
    )


# Where the share link opens: the prediction step.
SHARE_ANCHOR = "#step-03"


@lru_cache(maxsize=256)
def _preset_links(state: StationState) -> tuple[PresetLink, ...]:
    predicted = state.prediction is not None
    return tuple(
        PresetLink(p.id, p.title, preset_state(state, p.id).url(), p.id == state.options.preset)
        for p in PRESETS
        if predicted or not p.names_answer
    )


def classroom_view(state: StationState) -> ClassroomView:
    # Preset links keep the workload, the prediction and the view options but replace the
    # instrument, so a slider move (a new instrument) reuses the links already written.
    workload = {f: getattr(state.settings, f) for f in WORKLOAD_FIELDS}
    links = _preset_links(
        replace(state, settings=Settings(**workload), block=None, given=frozenset())
    )
    current, held = None, False
    if state.options.preset:
        p = BY_ID[state.options.preset]
        held = p.names_answer and state.prediction is None
        moved = any(getattr(state.settings, k) != v for k, v in p.values.items())
        current = None if held else CurrentPreset(p.title, p.hint, p.question, moved)
    later = len(PRESETS) - len(links)
    o = state.options
    views = (
        ViewLink(
            "Projector view", state.url(options=replace(o, view="projector")), o.view == "projector"
        ),
        ViewLink(
            "Standard view",
            state.url(options=replace(o, view="", embed=False)),
            not o.view and not o.embed,
        ),
        ViewLink("Embed view", state.url(options=replace(o, embed=True)), o.embed),
    )
    classes = [
        c for c, on in (("view-projector", o.view == "projector"), ("view-embed", o.embed)) if on
    ]
    return ClassroomView(
        presets=links,
        later=later,
        current=current,
        current_held=held,
        share_url=state.url(prediction=None) + SHARE_ANCHOR,
        share_full_url=state.url() if state.prediction is not None else "",
        share_drops=PREDICTION_FIELDS,
        views=views,
        body_class=" ".join(classes),
    )
