"""View options: how the state is shown, not what it is (part of the URL all the same).

A link cannot always be edited on a phone or in a shared file, so every option here is also
reachable from the page itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.station.state.presets import BY_ID
from witness.core.settings import shown

VIEWS = ("", "projector")
OPTION_FIELDS = ("preset", "view", "embed", "sub", "slice", "race")
SUB_STEPS_MAX = 40  # draft, one target pass, up to 16 checks, the ending: far below this


@dataclass(frozen=True, slots=True)
class ViewOptions:
    preset: str = ""
    view: str = ""  # "" or "projector"
    embed: bool = False
    sub: int | None = None  # the step-through's sub-step, when one is open
    slice: bool = False  # the full evaluation slice in the Next panel
    race: bool = False  # the draft-length policies raced, drawn inline in the evidence

    def query(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.preset:
            out["preset"] = self.preset
        if self.view:
            out["view"] = self.view
        if self.embed:
            out["embed"] = "1"
        if self.sub is not None:
            out["sub"] = str(self.sub)
        if self.slice:
            out["slice"] = "1"
        if self.race:
            out["race"] = "1"
        return out


def parse_options(raw: Mapping[str, str], problems: list[tuple[str, str]]) -> ViewOptions:
    preset = raw.get("preset", "")
    if preset and preset not in BY_ID:
        allowed = ", ".join(BY_ID)
        problems.append(("preset", f"preset must be one of {allowed} (got {shown(preset)})"))
        preset = ""
    view = raw.get("view", "")
    if view not in VIEWS:
        problems.append(("view", f"view must be projector or empty (got {shown(view)})"))
        view = ""
    flags = {}
    for name in ("embed", "slice", "race"):
        value = raw.get(name, "")
        if value not in ("", "0", "1"):
            problems.append((name, f"{name} must be 0 or 1 (got {shown(value)})"))
        flags[name] = value == "1"
    sub: int | None = None
    if raw.get("sub", ""):
        text = raw["sub"]
        # ASCII digits only: int() also reads "٣" and "1_0".
        sub = int(text) if text.isascii() and text.isdigit() and len(text) <= 20 else -1
        if not 0 <= sub <= SUB_STEPS_MAX:
            problems.append(
                ("sub", f"sub must be an integer from 0 to {SUB_STEPS_MAX} (got {shown(text)})")
            )
            sub = None
    return ViewOptions(preset, view, flags["embed"], sub, flags["slice"], flags["race"])
