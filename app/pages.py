"""The station's HTML: the whole page, its fragments, and recording a prediction.

Fragment routes render the very partials the page includes and answer with HX-Replace-Url
set to the full page URL, so reload, back and a copied link always give the whole page.
"""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.config import AppSettings
from app.prediction import apply_intervention
from app.state import Prediction, StationState, parse_state
from app.views.station import station_view

router = APIRouter(include_in_schema=False)


def _state(request: Request) -> StationState:
    return parse_state(request.query_params.multi_items())


def _app_settings(request: Request) -> AppSettings:
    settings: AppSettings = request.app.state.settings
    return settings


def _status(state: StationState) -> int:
    # A value the station could not use is the client's error, shown in place: 422.
    return 422 if state.problems else 200


@router.get("/")
@router.get("/station")
def station(request: Request) -> Response:
    state = _state(request)
    view = station_view(state, _app_settings(request))
    templates = request.app.state.templates
    response: Response = templates.TemplateResponse(
        request, "station.html", {"view": view}, status_code=_status(state)
    )
    return response


@router.get("/station/evidence")
def evidence(request: Request) -> Response:
    state = _state(request)
    view = station_view(state, _app_settings(request))
    context = {"view": view, "include_seed": request.headers.get("hx-trigger") == "next-request"}
    templates = request.app.state.templates
    response: Response = templates.TemplateResponse(
        request, "fragments_evidence.html", context, status_code=_status(state)
    )
    response.headers["HX-Replace-Url"] = view.links.page
    response.headers["Vary"] = "HX-Request, HX-Trigger"
    return response


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
