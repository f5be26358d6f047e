"""The station's HTML: the whole page, its fragments, and recording a prediction.

Fragment routes render the very partials the page includes and answer with HX-Replace-Url
set to the full page URL, so reload, back and a copied link always give the whole page.
Each builds its own context (app/station/views/station.py) and renders through the app's one
pipeline (app/rendering/pipeline.py).
"""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.contract.route import Intervention
from app.rendering.pipeline import Context, Env, Page, Pipeline
from app.station.state.interventions import apply_intervention
from app.station.state.query import Prediction, StationState, parse_query
from app.station.views.prediction import ANCHOR as CHANGE_ANCHOR
from app.station.views.station import (
    beside_fragment,
    block_fragment,
    live_view,
    slice_fragment,
    station_view,
    sweep_fragment,
)

router = APIRouter(include_in_schema=False)
# Fragments answer differently as these request headers say (the seed field, the step-through).
FRAGMENT_VARY = ("Vary", "HX-Request, HX-Trigger")


def status(state: StationState) -> int:
    # A value the station could not use is the client's error, shown in place: 422.
    return 422 if state.problems else 200


def respond(request: Request, page: Page, variant: object = None) -> Response:
    """Render ``page`` for the station state in the request's query."""
    state = parse_query(request.scope["query_string"])
    pipeline: Pipeline = request.app.state.pipeline
    return pipeline.respond(page, state, variant)


def _station(env: Env, state: StationState, _: object) -> Context:
    # The partials the page shares with the fragments read the live view as `view`; what
    # only the page shows (the step-through, the prediction form's carried state) is `page`.
    page = station_view(state, env.settings, env.witness)
    return Context({"view": page.live, "page": page, "include_seed": False}, status(state))


def _evidence(env: Env, state: StationState, include_seed: bool) -> Context:
    view = live_view(state, env.settings, env.witness)
    headers = (("HX-Replace-Url", view.links.page), FRAGMENT_VARY)
    return Context({"view": view, "include_seed": include_seed}, status(state), headers)


def _block(env: Env, state: StationState, _: object) -> Context:
    view = block_fragment(state, env.witness)
    locked = view.detail is None
    variables = {"d": view.detail, "pending": None, "locked": locked, "refused": state.problems}
    return Context(variables, status(state))


def _beside(env: Env, state: StationState, _: object) -> Context:
    view = beside_fragment(state, env.witness)
    variables = {
        "bc": view.comparison,
        "pending": None,
        "locked": view.locked,
        "alone": True,
        "refused": state.problems,
    }
    return Context(variables, status(state))


# The sweep and the slice are drawn inline on the page, whose own list names what was refused;
# answered alone, each fragment names it in place (templates/partials/_refused.html).


def _sweep(env: Env, state: StationState, _: object) -> Context:
    view = sweep_fragment(state, env.witness)
    variables = {"view": view, "refused": state.problems}
    return Context(variables, status(state), (("HX-Replace-Url", state.url()),))


def _slice(env: Env, state: StationState, _: object) -> Context:
    view = slice_fragment(state, env.witness)
    variables = {"view": view, "refused": state.problems}
    return Context(variables, status(state), (("HX-Replace-Url", state.url()),))


def _inline_heavy(state: StationState) -> bool:
    """A page that draws the evaluation slice or the race inline is seconds of work."""
    return state.options.slice or state.options.race


# Lanes (app/rendering/lanes.py): a slider answer is interactive; the sweep over sixteen
# requests and the slice are asked for once the evidence has settled, and may take seconds.
STATION = Page("station.html", _station, heavy=_inline_heavy)
EVIDENCE = Page("fragments_evidence.html", _evidence, sends_changed_parts=True)
BLOCK = Page("partials/_block_detail.html", _block)
BESIDE = Page("partials/_beside_chain.html", _beside)
SWEEP = Page("partials/_sweep.html", _sweep, heavy=True)
SLICE = Page("fragments_slice.html", _slice, heavy=True)


@router.get("/")
@router.get("/station")
def station(request: Request) -> Response:
    return respond(request, STATION)


@router.get("/station/evidence")
def evidence(request: Request) -> Response:
    # The seed field (and its "Next request" link) is refreshed with every fragment, except
    # when the learner is typing in it: replacing a focused field would lose their place.
    return respond(request, EVIDENCE, request.headers.get("hx-trigger") != "in-seed")


@router.get("/station/block")
def worked_block(request: Request) -> Response:
    """The worked block on its own, fetched by a slider's fragment once it has settled."""
    return respond(request, BLOCK)


@router.get("/station/beside")
def beside(request: Request) -> Response:
    """This method beside its chain twin on its own, fetched once a slider's tick has settled."""
    return respond(request, BESIDE)


@router.get("/station/sweep")
def sweep(request: Request) -> Response:
    """The draft-length sweep on its own, fetched after the evidence has settled."""
    return respond(request, SWEEP)


@router.get("/station/slice")
def evaluation_slice(request: Request) -> Response:
    """The evaluation slice on its own (the page URL it answers for has slice=1)."""
    return respond(request, SLICE)


@router.get("/station/predict")
def predict(request: Request) -> Response:
    """Record the prediction: snapshot the instrument and apply the intervention, visibly.

    The page it redirects to opens at the change line (app/station/views/prediction.py), which names
    what the intervention moved and links back to the prediction's settings; a skip moves
    nothing and opens at the evidence.
    """
    state = parse_query(request.scope["query_string"])
    if state.prediction is None or state.problems:
        # Nothing usable chosen: back to the prediction step with the problems shown there.
        return respond(request, STATION)
    before = state.settings
    intervention = state.prediction.intervention
    recorded = replace(
        state,
        settings=apply_intervention(before, intervention),
        prediction=Prediction(
            intervention, state.prediction.expect_faster, state.prediction.expect_kept, before
        ),
        block=None,
    )
    anchor = "#step-05" if intervention is Intervention.SKIP else CHANGE_ANCHOR
    return RedirectResponse(recorded.url() + anchor, status_code=303)
