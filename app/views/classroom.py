"""Classroom controls: presets, the share link, and the view options, each one click away."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from app.contract.route import WORKLOAD_FIELDS
from app.state.presets import BY_ID, PRESETS
from app.state.query import StationState
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
    presets: tuple[PresetLink, ...]
    current: CurrentPreset | None
    share_url: str
    views: tuple[ViewLink, ...]
    body_class: str


def preset_state(state: StationState, preset_id: str) -> StationState:
    """The state a preset link opens: the preset's instrument on this workload.

    A recorded prediction is kept, so the verdict keeps comparing against where the learner
    predicted from; the selected block and the step-through start afresh.
    """
    preset = BY_ID[preset_id]
    workload = {f: getattr(state.settings, f) for f in WORKLOAD_FIELDS}
    settings = Settings(**(preset.values | workload))
    return replace(
        state,
        settings=settings,
        block=None,
        options=replace(state.options, preset=preset_id, sub=None, slice=False),
    )


@lru_cache(maxsize=256)
def _preset_links(state: StationState) -> tuple[PresetLink, ...]:
    return tuple(
        PresetLink(p.id, p.title, preset_state(state, p.id).url(), p.id == state.options.preset)
        for p in PRESETS
    )


def classroom_view(state: StationState) -> ClassroomView:
    # Preset links keep the workload, the prediction and the view options but replace the
    # instrument, so a slider move (a new instrument) reuses the links already written.
    workload = {f: getattr(state.settings, f) for f in WORKLOAD_FIELDS}
    links = _preset_links(
        replace(state, settings=Settings(**workload), block=None, given=frozenset())
    )
    current = None
    if state.options.preset:
        p = BY_ID[state.options.preset]
        moved = any(getattr(state.settings, k) != v for k, v in p.values.items())
        current = CurrentPreset(p.title, p.hint, p.question, moved)
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
    return ClassroomView(links, current, state.url(), views, " ".join(classes))
