"""The step-through of one verification step, as a fragment: GET /station/step?...&sub=N.

The fragment is the very partial the page includes (templates/partials/_stepthrough.html),
rendered from a small context with the attribute names of StationView that the partial
reads. It answers with HX-Replace-Url set to the full page URL (/station?...&sub=N), so a
reload, Back or a copied link gives the whole page at the same sub-step. The sub-step's
narration is swapped into the page's live region out of band, except when the step-through
itself asks for a silent refresh (HX-Trigger: stepthrough, after a slider moved the state),
which leaves the address bar alone too (HX-Replace-Url: false).
A value the station cannot use answers 422 with the message in place, never a 500.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from fastapi.templating import Jinja2Templates

from app.rendering.memo import Memo
from app.rendering.pipeline import Encoded, RenderedPage, encode
from app.state.query import FieldProblem, StationState, parse_state
from app.views.station import cached_trace
from app.views.stepthrough import StepThroughView, selected_block, stepthrough_view
from witness import RequestTrace, Settings

router = APIRouter(include_in_schema=False)

TEMPLATE = "partials/_stepthrough.html"
ROOT_ID = "stepthrough"  # HX-Trigger of the step-through's own silent refresh
RENDER_CACHE = 512


@dataclass(frozen=True, slots=True)
class StepContext:
    """What the partial (and _live.html) read from ``view``, named as on StationView."""

    state: StationState
    settings: Settings
    trace: RequestTrace
    stepthrough: StepThroughView
    narration: str
    problems: tuple[FieldProblem, ...]


def step_context(state: StationState, live: bool = True) -> StepContext:
    """``live`` False: the silent refresh after a slider move (no narration, no complaint
    that the sub-step is past a block that has just become shorter)."""
    trace = cached_trace(state.settings)
    view = stepthrough_view(
        state, trace, selected_block(state, trace), all_problems=True, clamp_quietly=not live
    )
    return StepContext(state, state.settings, trace, view, view.narration, state.problems)


@dataclass(frozen=True, slots=True)
class RenderedStep:
    body: Encoded
    page_url: str
    has_problems: bool


StepRenderer = Callable[[StationState, bool], RenderedStep]


def make_step_renderer(templates: Jinja2Templates, gate: threading.Lock) -> StepRenderer:
    """Like app.rendering.pipeline's page renderer: one render per distinct (state, live) pair, and
    the cache keeps the text, not the context (it is rebuilt for a test client only)."""

    def render(state: StationState, live: bool) -> RenderedStep:
        context = step_context(state, live)
        body = templates.get_template(TEMPLATE).render(view=context, st_fragment=True, st_live=live)
        st = context.stepthrough
        return RenderedStep(encode(body), st.page_url, bool(st.problems))

    return Memo(render, RENDER_CACHE, gate)


def _renderer(request: Request) -> StepRenderer:
    render: StepRenderer = request.app.state.step_render  # made by create_app, one per app
    return render


@router.get("/station/step")
def step(request: Request) -> Response:
    state = parse_state(request.query_params.multi_items())
    live = request.headers.get("hx-trigger") != ROOT_ID
    made = _renderer(request)(state, live)

    def context() -> dict[str, Any]:
        view = step_context(state, live)
        return {"request": request, "view": view, "st_fragment": True, "st_live": live}

    response = RenderedPage(
        made.body, TEMPLATE, context, status_code=422 if made.has_problems else 200
    )
    # A silent refresh follows the address bar, it never sets it: the evidence answer that
    # asked for it has set it already, and a later one may have moved it on since.
    response.headers["HX-Replace-Url"] = made.page_url if live else "false"
    response.headers["Vary"] = "HX-Request, HX-Trigger"
    return response
