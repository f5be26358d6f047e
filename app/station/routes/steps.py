"""The step-through of one verification step, as a fragment: GET /station/step?...&sub=N.

The fragment is the very partial the page includes (templates/partials/_stepthrough.html),
rendered from a small context that is both what the partial reads as `page` (the
step-through) and what _live.html reads as `view` (the narration, the problems). It answers
with HX-Replace-Url set to the full page URL (/station?...&sub=N), so a reload, Back or a
copied link gives the whole page at the same sub-step. The sub-step's narration is swapped
into the page's live region out of band, except when the step-through itself asks for a
silent refresh (HX-Trigger: stepthrough, after a slider moved the state), which leaves the
address bar alone too (HX-Replace-Url: false).
A value the station cannot use answers 422 with the message in place, never a 500.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.rendering.pipeline import Context, Env, Page
from app.station.routes.pages import FRAGMENT_VARY, respond
from app.station.services import Witness
from app.station.state.query import FieldProblem, StationState
from app.station.views.stepthrough import StepThroughView, selected_block, stepthrough_view
from witness import RequestTrace, Settings

router = APIRouter(include_in_schema=False)

ROOT_ID = "stepthrough"  # HX-Trigger of the step-through's own silent refresh


@dataclass(frozen=True, slots=True)
class StepContext:
    """The step-through as the partial reads it from ``page`` (as on StationView), and the
    narration and problems as _live.html reads them from ``view`` (as on LiveView)."""

    state: StationState
    settings: Settings
    trace: RequestTrace
    stepthrough: StepThroughView
    narration: str
    problems: tuple[FieldProblem, ...]


def step_context(state: StationState, witness: Witness, live: bool = True) -> StepContext:
    """``live`` False: the silent refresh after a slider move (no narration, no complaint
    that the sub-step is past a block that has just become shorter)."""
    trace = witness.trace(state.settings)
    view = stepthrough_view(
        state, trace, selected_block(state, trace), all_problems=True, clamp_quietly=not live
    )
    return StepContext(state, state.settings, trace, view, view.narration, state.problems)


def _step(env: Env, state: StationState, live: bool) -> Context:
    view = step_context(state, env.witness, live)
    st = view.stepthrough
    # A silent refresh follows the address bar, it never sets it: the evidence answer that
    # asked for it has set it already, and a later one may have moved it on since.
    headers = (("HX-Replace-Url", st.page_url if live else "false"), FRAGMENT_VARY)
    variables = {"view": view, "page": view, "st_fragment": True, "st_live": live}
    return Context(variables, 422 if st.problems else 200, headers)


STEP = Page("partials/_stepthrough.html", _step)


@router.get("/station/step")
def step(request: Request) -> Response:
    return respond(request, STEP, request.headers.get("hx-trigger") != ROOT_ID)
