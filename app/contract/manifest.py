"""The station's manifest at `/station.json`: what the cockpit needs to place and link it."""

from __future__ import annotations

from typing import Any

from app.config import AppSettings
from app.contract.route import (
    KEY_PREFIX,
    MEMORY_VERSION,
    OBJECT_ID,
    READS,
    ROUTE_ID,
    STATION_ID,
    STATION_NUMBER,
    STATIONS,
)
from witness import Settings
from witness.core.settings import field_bounds

BOUND_KEYS = ("kind", "default", "min", "max", "step", "choices")
LINK_PARAMETERS = {
    "from": "Who sent the learner: serving or cockpit (shown in carry-in).",
    "memory": "Workload fields filled in from the saved Serving checkpoint (set by the station).",
}


def _listed(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def manifest(app: AppSettings) -> dict[str, Any]:
    index = STATION_NUMBER - 1
    params = [
        {
            "name": name,
            "title": info.title,
            "description": info.description,
            **{k: _listed(v) for k, v in field_bounds(name).items() if k in BOUND_KEYS},
        }
        for name, info in Settings.model_fields.items()
    ]
    params += [{"name": n, "kind": "str", "description": d} for n, d in LINK_PARAMETERS.items()]
    return {
        "id": STATION_ID,
        "number": index + 1,
        "title": "Speculative decoding",
        "object": OBJECT_ID,
        "route": {
            "id": ROUTE_ID,
            "position": index + 1,
            "of": len(STATIONS),
            "previous": STATIONS[index - 1][0],
            "next": STATIONS[index + 1][0],
            "stations": [{"id": s, "title": t} for s, t in STATIONS],
        },
        "reads": [f"{KEY_PREFIX}{s}" for s in READS],
        "writes": [f"{KEY_PREFIX}{STATION_ID}"],
        "memoryVersion": MEMORY_VERSION,
        "queryParameters": params,
        "links": {
            "station": "/station",
            "checkpoint": "/api/checkpoint",
            "schema": "/route-memory.schema.json",
            "manifestSchema": "/station-manifest.schema.json",
            "contract": "/route-memory.md",
            "openapi": "/openapi.json",
            "serving": app.serving_url or "/serving",
            "cockpit": app.cockpit_url or "/route",
            "next": app.next_station_url or None,
        },
    }
