"""The station's manifest at `/station.json`: what the cockpit needs to place and link it."""

from __future__ import annotations

from typing import Any

from app.checkpoint import OBJECT_ID, STATION_ID
from app.config import AppSettings
from witness import Settings
from witness.settings import field_bounds

STATIONS = (
    ("text-to-update", "Text to one update"),
    ("tokens-and-position", "Tokens and position"),
    ("attention-routing", "Attention routing"),
    ("rope-phase", "RoPE phase"),
    ("kv-memory", "KV memory"),
    ("long-context", "Long-context pressure"),
    ("serving", "Serving and decoding"),
    ("speculative-decoding", "Speculative decoding"),
    ("evaluation", "Evaluation and falsification"),
    ("capstone", "Capstone systems claim"),
)
KEY_PREFIX = "tsl.route."
BOUND_KEYS = ("kind", "default", "min", "max", "step")
LINK_PARAMETERS = {
    "from": "Who sent the learner: serving or cockpit (shown in carry-in).",
    "memory": "Workload fields filled in from the saved Serving checkpoint (set by the station).",
}


def manifest(app: AppSettings) -> dict[str, Any]:
    index = [s for s, _ in STATIONS].index(STATION_ID)
    params = [
        {
            "name": name,
            "title": info.title,
            "description": info.description,
            **{k: v for k, v in field_bounds(name).items() if k in BOUND_KEYS},
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
            "id": "ai-lab/transformers",
            "position": index + 1,
            "of": len(STATIONS),
            "previous": STATIONS[index - 1][0],
            "next": STATIONS[index + 1][0],
            "stations": [{"id": s, "title": t} for s, t in STATIONS],
        },
        "reads": [f"{KEY_PREFIX}serving", f"{KEY_PREFIX}long-context", f"{KEY_PREFIX}kv-memory"],
        "writes": [f"{KEY_PREFIX}{STATION_ID}"],
        "memoryVersion": 1,
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
