"""The measured roofline: a page of its own (`/roofline`, no JavaScript needed) and the
fragment the station's evidence fetches on demand (`/roofline/panel`), one partial for both.
Beside it, the tiny transformers' passes timed on this server and the roofline's price for
them (`witness.neural.timing`).

Both measurements (`witness.cost.measured.measured_here`, ~2 s, and
`witness.neural.timing.timed_here`, well under 1 s; each once per process) are made before
the render, outside the app's render gate, so other learners' new states never queue behind
them; the render is then cached by the measurements like any other page. They are never on
the slider path: only these two routes ask for them.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.rendering.pipeline import Context, Env, Page, Pipeline
from app.station.views.roofline import roofline_view
from app.station.views.roofline_passes import passes_view
from witness.cost import measured
from witness.cost.measured import MeasuredRoofline
from witness.neural import timing
from witness.neural.timing import NeuralPasses

Measurements = tuple[MeasuredRoofline, NeuralPasses]

router = APIRouter(include_in_schema=False)


def _context(key: Measurements, heading: int) -> Context:
    m, passes = key
    return Context({"view": roofline_view(m), "passes": passes_view(passes), "heading": heading})


def _page(env: Env, key: Measurements, _: object) -> Context:
    return _context(key, 2)


def _panel(env: Env, key: Measurements, _: object) -> Context:
    # Swapped into the evidence panel, under its h2 and beside the sweep's h3.
    return _context(key, 3)


PAGE = Page("roofline.html", _page)
PANEL = Page("partials/_roofline.html", _panel)


def _respond(request: Request, page: Page) -> Response:
    pipeline: Pipeline = request.app.state.pipeline
    m = measured.measured_here()
    return pipeline.respond(page, (m, timing.passes_here(m)))


@router.get("/roofline")
def roofline_page(request: Request) -> Response:
    """The measured roofline on a whole page (the entry's link without JavaScript)."""
    return _respond(request, PAGE)


@router.get("/roofline/panel")
def roofline_panel(request: Request) -> Response:
    """The same panel as a fragment, for the station's on-demand entry (htmx)."""
    return _respond(request, PANEL)
