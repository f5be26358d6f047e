"""The route around the station: manifest, checkpoint, contract files, and the stand-ins.

With no Serving or cockpit URL configured the station still has no dead links: "Back to
Serving" opens a small stand-in where a workload is entered and saved as the Serving
checkpoint, and "Open route cockpit" opens the station's own view of the ten stations and
what route memory holds for each (read in the browser; the server stores nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from app.contract.checkpoint import checkpoint_entry
from app.contract.manifest import manifest
from app.contract.route import STATIONS, WORKLOAD_FIELDS
from app.rendering.pipeline import Context, Env, Page, Pipeline
from app.station.routes.api_models import CheckpointEntry, CheckpointProblems, Manifest
from app.station.state.query import parse_query
from app.station.views.controls import lowest_offered
from witness import Settings
from witness.core.settings import expected_text, field_bounds

DOCS = Path(__file__).resolve().parents[3] / "docs"
router = APIRouter()


@router.get(
    "/station.json", response_model=Manifest, tags=["route"], summary="The station's manifest"
)
def station_manifest(request: Request) -> dict[str, Any]:
    return manifest(request.app.state.settings)


# The contract files are documents, not API operations: kept out of the OpenAPI description.
SCHEMA = "application/schema+json"
MARKDOWN = "text/markdown; charset=utf-8"
DOCUMENTS = {
    "/route-memory.schema.json": ("route-memory.schema.json", SCHEMA),
    "/station-manifest.schema.json": ("station-manifest.schema.json", SCHEMA),
    "/route-memory.md": ("route-memory.md", MARKDOWN),
    "/architecture.md": ("ARCHITECTURE.md", MARKDOWN),
}


def _document(name: str, media_type: str) -> Callable[[], FileResponse]:
    def serve() -> FileResponse:
        return FileResponse(DOCS / name, media_type=media_type)

    return serve


for _path, (_name, _media) in DOCUMENTS.items():
    router.add_api_route(_path, _document(_name, _media), methods=["GET"], include_in_schema=False)


@router.get(
    "/api/checkpoint",
    tags=["route"],
    summary="This station's route-memory entry for a station state (same query as the page)",
    response_model=CheckpointEntry,
    # Written by Python's json, as the browser has always received it (pydantic's own JSON
    # spells some floats differently: 1e-05 as 0.00001).
    response_class=JSONResponse,
    responses={422: {"model": CheckpointProblems, "description": "A field out of range"}},
)
def api_checkpoint(request: Request) -> dict[str, Any] | Response:
    state = parse_query(request.scope["query_string"])
    if state.problems:
        detail = [
            {"loc": ["query", p.field], "msg": p.message, "type": "value_error"}
            for p in state.problems
        ]
        return JSONResponse({"detail": detail}, status_code=422)
    return checkpoint_entry(state, request.app.state.witness)


def _serving(env: Env, _: object, __: object) -> Context:
    fields = [_workload_field(n) for n in WORKLOAD_FIELDS]
    return Context({"fields": fields, "defaults": Settings()})


def _workload_field(name: str) -> dict[str, Any]:
    """A workload field with its lowest value and its range in words as the station's own
    controls give them: a strict bound (TPOT above 0) offers one step above and says "above"."""
    bounds = field_bounds(name)
    said = expected_text(name)
    return {
        "name": name,
        "label": Settings.model_fields[name].title,
        **bounds,
        "lowest": lowest_offered(bounds),
        "range": f"{said[:1].upper()}{said[1:]}.",
    }


def _route(env: Env, _: object, __: object) -> Context:
    return Context({"stations": list(enumerate(STATIONS, start=1))})


SERVING = Page("serving.html", _serving)
ROUTE = Page("route.html", _route)


@router.get("/serving", include_in_schema=False)
def serving_stand_in(request: Request) -> Response:
    pipeline: Pipeline = request.app.state.pipeline
    return pipeline.respond(SERVING)


@router.get("/route", include_in_schema=False)
def route_view(request: Request) -> Response:
    pipeline: Pipeline = request.app.state.pipeline
    return pipeline.respond(ROUTE)
