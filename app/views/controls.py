"""The Manipulation panel's controls, built from the witness `Settings` model's bounds.

Min, max, step and help text come from the model (one place), so a slider can never offer
a value the witness would refuse.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.state.query import FieldProblem, number_text
from app.views import fmt
from witness import Settings
from witness.settings import field_bounds

SLIDERS = ("match", "k", "draft_cost")
SWITCHES = ("verify", "repair")
WORKLOAD = ("prompt", "tokens", "ttft_ms", "tpot_ms")


@dataclass(frozen=True, slots=True)
class Control:
    name: str
    label: str
    help: str
    value: str
    value_text: str
    min: str
    max: str
    step: str
    error: str


@dataclass(frozen=True, slots=True)
class ControlsView:
    sliders: tuple[Control, ...]
    switches: tuple[Control, ...]
    greedy: Control
    seed: Control
    prompt: Control
    workload: tuple[Control, ...]


def control(name: str, s: Settings, problems: tuple[FieldProblem, ...]) -> Control:
    info = Settings.model_fields[name]
    bounds = field_bounds(name)
    value = getattr(s, name)
    if bounds["kind"] == "bool":
        text = fmt.on_off(value)
    elif bounds["kind"] == "str":
        text = value
    else:
        text = number_text(value)
    shown = f"{value:.2f}" if bounds["kind"] == "float" and name in SLIDERS else text
    return Control(
        name=name,
        label=info.title or name,
        help=info.description or "",
        value=text,
        value_text=shown,
        min=_bound(_lowest(bounds)),
        max=_bound(bounds.get("max", bounds.get("max_length"))),
        step=_bound(bounds.get("step")),
        error="; ".join(p.message for p in problems if p.field == name),
    )


def _lowest(bounds: dict[str, object]) -> object:
    """The lowest value a control may offer: for a strict bound (TPOT > 0), one step above."""
    if "gt" in bounds and "step" in bounds:
        return round(float(bounds["gt"]) + float(bounds["step"]), 12)  # type: ignore[arg-type]
    return bounds.get("min")


def _bound(x: object) -> str:
    if x is None:
        return ""
    return number_text(x) if isinstance(x, float) else str(x)


def controls_view(s: Settings, problems: tuple[FieldProblem, ...]) -> ControlsView:
    return ControlsView(
        sliders=tuple(control(n, s, problems) for n in SLIDERS),
        switches=tuple(control(n, s, problems) for n in SWITCHES),
        greedy=control("greedy", s, problems),
        seed=control("seed", s, problems),
        prompt=control("prompt", s, problems),
        workload=tuple(control(n, s, problems) for n in WORKLOAD if n != "prompt"),
    )
