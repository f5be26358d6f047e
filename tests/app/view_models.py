"""View models for a URL, built as the routes build them.

Views are pure (state in, view model out), so a test reads the view model by calling the view
function on the URL's state, and reads the HTTP layer through the response; the app keeps no
test-only introspection. One witness cache serves these calls (the results are deterministic).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

from app.config import AppSettings
from app.station.routes.steps import StepContext, step_context
from app.station.services import Witness
from app.station.state.query import StationState, parse_state
from app.station.views.station import (
    LiveView,
    StationView,
    live_view,
    slice_fragment,
    station_view,
    sweep_fragment,
)
from witness import RequestTrace, Settings

WITNESS = Witness()
APP = AppSettings()


def state_of(url: str) -> StationState:
    """The state a route reads from ``url`` (a path with a query, or a bare query)."""
    query = urlsplit(url).query if "?" in url or url.startswith("/") else url
    return parse_state(parse_qsl(query, keep_blank_values=True))


def station_of(url: str) -> StationView:
    """What GET /station renders for ``url``: the live view and what only the page shows."""
    return station_view(state_of(url), APP, WITNESS)


def page_view(url: str) -> LiveView:
    """The live view GET /station renders for ``url`` (the sweep, slice and race inline)."""
    return station_of(url).live


def live_of(url: str) -> LiveView:
    """What the evidence fragment (and the worksheet) render for ``url``."""
    return live_view(state_of(url), APP, WITNESS)


def step_of(url: str, live: bool = True) -> StepContext:
    """What GET /station/step renders for ``url``."""
    return step_context(state_of(url), WITNESS, live)


def trace_of(settings: Settings) -> RequestTrace:
    return WITNESS.trace(settings)


def view_of(response: Any) -> Any:
    """The view model the route that answered ``response`` renders, for the request it had."""
    request = response.request
    url = str(request.url)
    path = urlsplit(url).path
    if path in ("/", "/station"):
        return page_view(url)
    if path == "/station/evidence":
        return live_of(url)
    if path == "/station/step":
        return step_of(url, request.headers.get("hx-trigger") != "stepthrough")
    if path == "/station/sweep":
        return sweep_fragment(state_of(url), WITNESS)
    if path == "/station/slice":
        return slice_fragment(state_of(url), WITNESS)
    raise ValueError(f"no station view renders {path}")
