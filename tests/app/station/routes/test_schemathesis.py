"""Schemathesis over /openapi.json in-process (ASGI), bounded: a few derandomised examples per
operation, so it runs with every `make test` (test_fuzz.py is the long run, marked slow).

Typed: every JSON operation documents its 200 body by a named schema and its 422 by the
shape it really sends (FastAPI's `HTTPValidationError`, the checkpoint's `CheckpointProblems`),
and schemathesis holds each generated response to them (`response_schema_conformance`), and to
no 500.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from app.config import AppSettings
from app.main import create_app
from tests.app.station.routes.test_fuzz import check

APP = create_app(settings=AppSettings())
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
# The coverage phase makes dozens of calls per operation whatever max_examples says; the long
# run (test_fuzz.py) has it. Here: the documented examples and a few generated cases.
schema.config.phases.coverage.enabled = False
OPERATIONS = [
    (path, method, op)
    for path, item in APP.openapi()["paths"].items()
    for method, op in item.items()
]
# The operations whose answer depends on the query: a 422 is documented for them.
TAKES_A_QUERY = {path for path, _, op in OPERATIONS if op.get("parameters")}


def _json_schema(op: dict[str, Any], status: str) -> dict[str, Any]:
    return dict(op["responses"][status]["content"]["application/json"]["schema"])


@pytest.mark.parametrize(("path", "method", "op"), OPERATIONS, ids=[p for p, _, _ in OPERATIONS])
def test_every_json_operation_declares_a_typed_answer(
    path: str, method: str, op: dict[str, Any]
) -> None:
    ok = _json_schema(op, "201" if "201" in op["responses"] else "200")  # 201: a class opened
    assert "$ref" in ok or ok.get("type") == "object" and ok.get("properties"), (path, ok)
    if path in TAKES_A_QUERY:
        refused = _json_schema(op, "422")
        assert refused.get("$ref", "").rsplit("/", 1)[-1] in (
            "HTTPValidationError",
            "CheckpointProblems",
        ), (path, refused)


def test_the_settings_state_what_the_model_refuses() -> None:
    """What the validators refuse is in the description too, or schemathesis would call the
    refusal a schema-valid request rejected: the prompt's pattern, TPOT's subnormals."""
    params = {
        p["name"]: p["schema"] for p in APP.openapi()["paths"]["/api/trace"]["get"]["parameters"]
    }
    assert "pattern" in params["prompt"]
    assert params["tpot_ms"]["exclusiveMinimum"] == 0 and "not" in params["tpot_ms"]


@schema.parametrize()
@settings(
    max_examples=5,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_a_bounded_run_conforms_to_the_documented_schemas(case: schemathesis.Case) -> None:
    check(case)
