"""The station's HTML: the whole page, its fragments, and recording a prediction.

Fragment routes render the very partials the page includes and answer with HX-Replace-Url
set to the full page URL, so reload, back and a copied link always give the whole page.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.rendering.pipeline import RenderedPage, Renderer
from app.state.interventions import apply_intervention
from app.state.query import Prediction, StationState, parse_state

router = APIRouter(include_in_schema=False)


def _state(request: Request) -> StationState:
    return parse_state(request.query_params.multi_items())


def _status(state: StationState) -> int:
    # A value the station could not use is the client's error, shown in place: 422.
    return 422 if state.problems else 200


def _render(
    request: Request, template: str, include_seed: bool = False, *, fragment: bool = True
) -> RenderedPage:
    state = _state(request)
    renderer: Renderer = request.app.state.render
    made = renderer.render(template, state, include_seed)

    def context() -> dict[str, Any]:
        view = renderer.view(template, state)
        return {"request": request, "view": view, "include_seed": include_seed}

    response = RenderedPage(made.body, template, context, status_code=_status(state))
    if fragment:  # reload, back and a copied link must give the whole page
        response.headers["HX-Replace-Url"] = made.page_url
    return response


@router.get("/")
@router.get("/station")
def station(request: Request) -> Response:
    return _render(request, "station.html", fragment=False)


@router.get("/station/evidence")
def evidence(request: Request) -> Response:
    response = _render(request, "fragments_evidence.html", _swap_seed(request))
    response.headers["Vary"] = "HX-Request, HX-Trigger"
    return response


@router.get("/station/sweep")
def sweep(request: Request) -> Response:
    """The draft-length sweep on its own, fetched after the evidence has settled."""
    return _render(request, "partials/_sweep.html")


@router.get("/station/slice")
def evaluation_slice(request: Request) -> Response:
    """The evaluation slice on its own (the page URL it answers for has slice=1)."""
    return _render(request, "fragments_slice.html")


def _swap_seed(request: Request) -> bool:
    # The seed field (and its "Next request" link) is refreshed with every fragment, except
    # when the learner is typing in it: replacing a focused field would lose their place.
    return request.headers.get("hx-trigger") != "in-seed"


@router.get("/station/predict")
def predict(request: Request) -> Response:
    """Record the prediction: snapshot the instrument, apply the intervention, show evidence."""
    state = _state(request)
    if state.prediction is None or state.problems:
        # Nothing usable chosen: back to the prediction step with the problems shown there.
        return station(request)
    before = state.settings
    after = apply_intervention(before, state.prediction.intervention)
    recorded = replace(
        state,
        settings=after,
        prediction=Prediction(
            state.prediction.intervention,
            state.prediction.expect_faster,
            state.prediction.expect_kept,
            before,
        ),
        block=None,
    )
    return RedirectResponse(recorded.url() + "#step-05", status_code=303)
