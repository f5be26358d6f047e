"""The measured roofline: a page of its own (`/roofline`, no JavaScript needed) and the
fragment the station's evidence fetches on demand (`/roofline/panel`), one partial for both.

The measurement (`witness.cost.measured.measured_here`, ~2 s, once per process) is made before
the render, outside the app's render gate, so other learners' new states never queue behind
it; the render is then cached by the measurement like any other page. It is never on the
slider path: only these two routes ask for it.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.rendering.pipeline import Context, Env, Page, Pipeline
from app.station.views.roofline import roofline_view
from witness.cost import measured
from witness.cost.measured import MeasuredRoofline

router = APIRouter(include_in_schema=False)


def _page(env: Env, m: MeasuredRoofline, _: object) -> Context:
    return Context({"view": roofline_view(m), "heading": 2})


def _panel(env: Env, m: MeasuredRoofline, _: object) -> Context:
    # Swapped into the evidence panel, under its h2 and beside the sweep's h3.
    return Context({"view": roofline_view(m), "heading": 3})


PAGE = Page("roofline.html", _page)
PANEL = Page("partials/_roofline.html", _panel)


def _respond(request: Request, page: Page) -> Response:
    pipeline: Pipeline = request.app.state.pipeline
    return pipeline.respond(page, measured.measured_here())


@router.get("/roofline")
def roofline_page(request: Request) -> Response:
    """The measured roofline on a whole page (the entry's link without JavaScript)."""
    return _respond(request, PAGE)


@router.get("/roofline/panel")
def roofline_panel(request: Request) -> Response:
    """The same panel as a fragment, for the station's on-demand entry (htmx)."""
    return _respond(request, PANEL)
