"""Every JSON route has a typed response: /openapi.json names each field and its type, and
typing the routes changed no byte of what they send."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter

from app.station.routes import api_models, route
from tests.app.station.routes.test_api import SETTINGS_ROUTES
from witness import Settings, output_distribution, serve_request
from witness.judge.evaluation import evaluate, first_position
from witness.judge.expected import ensemble_of
from witness.judge.sweep import sweep_k
from witness.judge.verdict import judged_trace, verdict_of
from witness.models.lm import tiny_models

DOCS = Path(__file__).resolve().parents[4] / "docs"
# Before the routes were typed, each returned a dict annotated dict[str, Any], which FastAPI
# wrote with this adapter: the reference for "the same bytes".
UNTYPED = TypeAdapter(dict[str, Any])
STATES: list[dict[str, Any]] = [
    {},
    {"match": 0.2, "seed": 3},
    {"match": 1},
    {"match": 0, "draft_cost": 0.45},
    {"verify": "false"},
    {"repair": "false", "match": 0.9},
    {"greedy": "true"},
    {"greedy": "true", "match": 0, "prompt": "the"},
    {"draft_cost": 0, "verify": "false"},
    {"tokens": 1},
    {"tokens": 256, "k": 16, "match": 0.1},
    {"prompt": "hello world", "tpot_ms": 12, "ttft_ms": 0},
]


def _ids(params: dict[str, Any]) -> str:
    return "&".join(f"{k}={v}" for k, v in params.items()) or "defaults"


@pytest.mark.parametrize("params", STATES, ids=_ids)
def test_trace_and_sweep_send_the_bytes_their_dicts_did(
    client: TestClient, params: dict[str, Any]
) -> None:
    s = Settings.model_validate(params)
    trace = client.get("/api/trace", params=params)
    assert trace.status_code == 200
    served = serve_request(s)
    judged = judged_trace(served, verdict_of(ensemble_of(s), s, served.check))
    assert trace.content == UNTYPED.dump_json(judged.to_dict())
    assert client.get("/api/sweep", params=params).content == UNTYPED.dump_json(
        sweep_k(s).to_dict()
    )


@pytest.mark.parametrize("params", STATES, ids=_ids)
def test_distributions_are_the_switch_tables_laws(
    client: TestClient, params: dict[str, Any]
) -> None:
    """The first drafted position's p and q, and what each mode emits there: verify and
    repair give p back, repair off leans toward q by min(p, q) + (1 − α)·p, no verify is q."""
    body = client.get("/api/distributions", params=params).json()
    p, q = np.array(body["p"]), np.array(body["q"])
    assert body["vocab"] == list(tiny_models().vocab) and len(p) == len(q) == len(body["vocab"])
    for law in (p, q, np.array(body["residual"]), *map(np.array, body["output"].values())):
        assert law.min() >= 0 and abs(law.sum() - 1) < 1e-9
    alpha = body["alpha"]
    assert alpha == pytest.approx(np.minimum(p, q).sum(), abs=1e-12)
    assert alpha == pytest.approx(1 - 0.5 * np.abs(p - q).sum(), abs=1e-12)
    out = {mode: np.array(law) for mode, law in body["output"].items()}
    assert np.allclose(out["lossless"], p, atol=1e-12)
    assert np.allclose(out["no_verify"], q, atol=0)
    assert np.allclose(out["no_repair"], np.minimum(p, q) + (1 - alpha) * p, atol=1e-12)
    # The residual is where p exceeds q, renormalised: it repairs exactly what rejection lost.
    assert np.allclose(np.minimum(p, q) + (1 - alpha) * np.array(body["residual"]), p, atol=1e-12)
    # …and the request's p and q are the witness's own at this state, not any distribution.
    want_p, want_q = first_position(Settings.model_validate(params))
    assert np.array_equal(p, want_p) and np.array_equal(q, want_q)


def test_a_broken_repair_is_not_the_lossless_law() -> None:
    """The teeth of the laws above: repair off, away from p = q, is not p."""
    p, q = first_position(Settings(match=0.3))
    assert not np.allclose(output_distribution(p, q, repair=False), p, atol=1e-6)


@pytest.mark.parametrize(
    "params",
    [{}, {"match": 0.3, "repair": "false"}, {"greedy": "true", "match": 0, "prompt": "the"}],
    ids=_ids,
)
def test_evaluation_sends_the_bytes_its_dict_did(
    client: TestClient, params: dict[str, Any]
) -> None:
    expected = evaluate(Settings.model_validate(params)).to_dict()
    r = client.get("/api/evaluation", params=params)
    assert r.content == UNTYPED.dump_json(expected)
    if params.get("prompt") == "the":  # greedy, no verify: an impossible token, statistic inf
        assert r.json()["modes"][2]["chi_square"]["statistic"] is None


CHECKPOINT_STATES = [
    {},
    {"match": 0.2, "k": 9, "draft_cost": 0.3},
    {"repair": "off"},
    {"verify": "off", "draft_cost": 0},
    {"pred": "lengthen_k", "expect_faster": "yes", "expect_kept": "yes", "base": "0.6,4,0.1,1,1,0"},
    {"pred": "skip_repair", "expect_faster": "no", "expect_kept": "no", "base": "0.6,4,0.1,1,1,0"},
    {"pred": "skip"},
    {"from": "serving", "ttft_ms": 180, "tpot_ms": 28, "tokens": 64},
]


@pytest.mark.parametrize("params", CHECKPOINT_STATES, ids=_ids)
def test_checkpoint_is_still_pythons_json_of_the_entry(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, params: dict[str, Any]
) -> None:
    """The entry goes through the model (and is checked by it) but is written as before."""
    built: list[dict[str, Any]] = []
    at = datetime(2026, 1, 2, 3, 4, 5, 678_000, tzinfo=UTC)
    entry_of = route.checkpoint_entry

    def at_a_fixed_time(*args: Any, **kwargs: Any) -> dict[str, Any]:
        entry = entry_of(*args, **kwargs, now=at)
        built.append(entry)
        return entry

    monkeypatch.setattr(route, "checkpoint_entry", at_a_fixed_time)
    r = client.get("/api/checkpoint", params=params)
    assert r.status_code == 200
    (entry,) = built
    assert r.content == JSONResponse(entry).body
    assert r.json()["savedAt"] == "2026-01-02T03:04:05.678Z"
    assert r.headers["content-type"] == "application/json"


# --- the mirrors stay mirrors -----------------------------------------------------------------


def _memory_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((DOCS / "route-memory.schema.json").read_text())
    return schema


@pytest.mark.parametrize(
    ("model", "where"),
    [
        (api_models.CheckpointEntry, ("entry",)),
        (api_models.Checkpoint, ("speculativeCheckpoint",)),
        (api_models.AcceptedPrefix, ("speculativeCheckpoint", "acceptedPrefix")),
        (api_models.Invariant, ("speculativeCheckpoint", "invariant")),
        (api_models.SpeedupBoundary, ("speculativeCheckpoint", "speedupBoundary")),
        (api_models.Prediction, ("speculativeCheckpoint", "prediction", "oneOf", 1)),
        (api_models.Held, ("speculativeCheckpoint", "prediction", "oneOf", 1, "held")),
    ],
)
def test_checkpoint_models_have_the_route_memory_schema_fields(
    model: type[BaseModel], where: tuple[str | int, ...]
) -> None:
    node: Any = _memory_schema()["$defs"][where[0]]
    for step in where[1:]:
        node = node[step] if isinstance(step, int) or step == "oneOf" else node["properties"][step]
    assert list(model.model_fields) == list(node["properties"])


def test_checkpoint_settings_are_the_witness_settings() -> None:
    node = _memory_schema()["$defs"]["speculativeCheckpoint"]["properties"]["settings"]
    assert api_models.Checkpoint.model_fields["settings"].annotation is Settings
    assert list(Settings.model_fields) == list(node["properties"])


def test_manifest_model_has_the_manifest_schema_fields() -> None:
    schema = json.loads((DOCS / "station-manifest.schema.json").read_text())
    assert list(api_models.Manifest.model_fields) == list(schema["properties"])
    assert list(api_models.RoutePlace.__annotations__) == list(
        schema["properties"]["route"]["properties"]
    )
    parameter = schema["properties"]["queryParameters"]["items"]["properties"]
    assert set(api_models.QueryParameter.__annotations__) == set(parameter)


# --- /openapi.json describes each response ------------------------------------------------------


@pytest.fixture
def spec(client: TestClient) -> dict[str, Any]:
    body: dict[str, Any] = client.get("/openapi.json").json()
    return body


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = spec["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _response(spec: dict[str, Any], path: str, status: str = "200") -> dict[str, Any]:
    content = spec["paths"][path]["get"]["responses"][status]["content"]
    return _resolve(spec, content["application/json"]["schema"])


def _field(spec: dict[str, Any], node: dict[str, Any], *names: str) -> dict[str, Any]:
    for name in names:
        node = _resolve(spec, node)
        if node.get("type") == "array":
            node = _resolve(spec, node["items"])
        assert name in node["properties"], (name, sorted(node["properties"]))
        node = node["properties"][name]
    return _resolve(spec, node)


NUMBER_OR_NULL = [{"type": "number"}, {"type": "null"}]


def test_openapi_types_the_trace(spec: dict[str, Any]) -> None:
    trace = _response(spec, "/api/trace")
    assert set(trace["required"]) == set(trace["properties"]) >= {"blocks", "totals", "check"}
    assert _field(spec, trace, "totals", "speedup_measured")["anyOf"] == NUMBER_OR_NULL
    assert _field(spec, trace, "totals", "target_passes")["type"] == "integer"
    assert _field(spec, trace, "check", "mode")["enum"] == ["lossless", "no_repair", "no_verify"]
    assert _field(spec, trace, "blocks", "drafts", "accepted")["anyOf"] == [
        {"type": "boolean"},
        {"type": "null"},
    ]
    assert _field(spec, trace, "blocks", "result", "emitted")["items"] == {"type": "integer"}
    kinds = _field(spec, trace, "blocks", "emitted_kinds")["items"]["enum"]
    assert kinds == ["accepted", "repaired", "bonus", "unchecked"]
    pair = _field(spec, trace, "blocks", "residual_top")["items"]
    assert pair["prefixItems"] == [{"type": "string"}, {"type": "number"}]


def test_openapi_types_the_sweep_and_the_distributions(spec: dict[str, Any]) -> None:
    sweep = _response(spec, "/api/sweep")
    assert _field(spec, sweep, "optimal_k")["type"] == "integer"
    assert _field(spec, sweep, "points", "k")["type"] == "integer"
    assert _field(spec, sweep, "points", "speedup_measured")["anyOf"] == NUMBER_OR_NULL
    laws = _response(spec, "/api/distributions")
    assert _field(spec, laws, "vocab")["items"] == {"type": "string"}
    for mode in ("lossless", "no_repair", "no_verify"):
        assert _field(spec, laws, "output", mode)["items"] == {"type": "number"}


def test_openapi_types_the_evaluation(spec: dict[str, Any]) -> None:
    slice_ = _response(spec, "/api/evaluation")
    assert _field(spec, slice_, "modes")["type"] == "array"
    assert _field(spec, slice_, "modes", "keeps_target")["type"] == "boolean"
    assert _field(spec, slice_, "modes", "chi_square", "statistic")["anyOf"] == NUMBER_OR_NULL
    assert _field(spec, slice_, "modes", "chi_square", "dof")["type"] == "integer"
    assert _field(spec, slice_, "current_mode")["enum"] == ["lossless", "no_repair", "no_verify"]


def test_openapi_types_the_checkpoint_and_its_422(spec: dict[str, Any]) -> None:
    entry = _response(spec, "/api/checkpoint")
    prefix = _field(spec, entry, "checkpoint", "acceptedPrefix")
    assert set(prefix["required"]) == set(prefix["properties"])
    assert prefix["properties"]["acceptedDrafts"]["type"] == "integer"
    assert prefix["properties"]["speedupMeasured"]["anyOf"] == NUMBER_OR_NULL
    saved = _field(spec, entry, "savedAt")
    assert (saved["type"], saved["format"]) == ("string", "date-time")
    assert _field(spec, entry, "checkpoint", "settings", "k")["maximum"] == 16
    problems = _response(spec, "/api/checkpoint", "422")
    assert set(_field(spec, problems, "detail", "loc")) >= {"type", "items"}
    assert _field(spec, problems, "detail", "msg")["type"] == "string"


def test_openapi_types_the_manifest(spec: dict[str, Any]) -> None:
    manifest = _response(spec, "/station.json")
    assert _field(spec, manifest, "number")["type"] == "integer"
    assert _field(spec, manifest, "route", "stations", "id")["type"] == "string"
    assert _field(spec, manifest, "queryParameters", "name")["type"] == "string"
    assert _field(spec, manifest, "links", "next")["anyOf"] == [
        {"type": "string"},
        {"type": "null"},
    ]


@pytest.mark.parametrize("path", [*SETTINGS_ROUTES, "/api/checkpoint"])
def test_no_api_response_is_a_bare_object(spec: dict[str, Any], path: str) -> None:
    """Every object in each response names its fields; only the echoed settings are free."""
    seen: set[str] = set()

    def walk(node: dict[str, Any], where: str) -> None:
        if "$ref" in node:
            name = node["$ref"]
            if name in seen:
                return
            seen.add(name)
        node = _resolve(spec, node)
        for sub in node.get("anyOf", []) + node.get("prefixItems", []):
            walk(sub, where)
        if "items" in node:
            walk(node["items"], where + "[]")
        if node.get("type") == "object":
            if where.endswith(".settings") and node.get("additionalProperties") is True:
                return  # a RequestTrace / EvaluationSlice echoes Settings.model_dump()
            assert node.get("properties"), f"{path}: {where} is a bare object"
            for name, sub in node["properties"].items():
                walk(sub, f"{where}.{name}")
        else:
            assert node.get("type") or node.get("anyOf") or node.get("enum"), (path, where)

    walk(_response(spec, path), path)
