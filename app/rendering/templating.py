"""Jinja2 set-up: strict undefined (a missing name is an error, not a blank), autoescape on."""

from __future__ import annotations

from pathlib import Path

from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from app.contract import route
from app.rendering.parts import part
from app.station.state.query import number_text

TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"


def make_templates() -> Jinja2Templates:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES_DIR),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        # Templates do not change under a running server (restart it after editing one):
        # without this, every include stat()s its file, dozens of times per render.
        auto_reload=False,
    )
    env.filters["num"] = number_text
    # A part of the page a fragment may refresh out of band (app/rendering/parts.py).
    env.filters["part"] = part
    # The route contract (station ids and titles, object id, what carry-in reads) is Python's:
    # templates read it as `route.STATIONS`, `route.OBJECT_ID`, … rather than copying it.
    env.globals["route"] = route
    return Jinja2Templates(env=env)
