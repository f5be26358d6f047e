"""Schemathesis over the OpenAPI description: no generated request may produce a 500, and
every response must match the shape /openapi.json documents for it.

The four witness routes take every setting as a query parameter; at 200 examples each
(schemathesis 4 runs its examples, coverage and fuzzing phases within that budget) the run
makes about 1 600 calls (391 per witness route, plus the parameterless ones), seeded
(derandomised) so it is the same every time. A 422 is the only allowed answer to bad input.

The twins below are apps whose routes answer with the wrong type or without a field: the
same check must fail on them, so a passing run means the responses really conform.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.exceptions import ResponseValidationError
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.openapi.checks import JsonSchemaError

from app.config import AppSettings
from app.main import create_app
from app.station.routes.api_models import CheckpointEntry, KSweep, RequestTrace
from witness import Settings, serve_request
from witness.judge.sweep import sweep_k

schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(settings=AppSettings()))


def check(case: schemathesis.Case) -> None:
    """The whole check on one generated case: not a 500, a well-formed 422, a conforming body."""
    response = case.call()
    assert response.status_code < 500, f"{case.path} {case.query} -> {response.status_code}"
    if response.status_code == 422:
        errors = response.json()["detail"]
        for err in errors:
            # The live class's routes also take a path and a JSON body (app/classes/api.py).
            assert err["loc"][0] in ("query", "path", "body", "header"), err
            assert err["msg"], err
        # Values valid alone but not together (a tree too wide for its k, prompt lookup with
        # a tree): OpenAPI cannot state a rule across query parameters, so schemathesis
        # calls these schema-valid; the 422 names the field and why, and that is the answer.
        if all(err["type"] == "settings_combination" for err in errors):
            assert all(err["loc"][1] in Settings.model_fields for err in errors)
            return
    # Every check schemathesis 4 enables by default: status code, content type, headers and
    # `response_schema_conformance` (the body against its documented schema; the twins below
    # show it runs).
    case.validate_response(response)


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_no_generated_request_breaks_the_api(case: schemathesis.Case) -> None:
    check(case)


# --- teeth: the same check on apps whose responses do not match their description -----------


def _wrong_type_in_the_trace(app: FastAPI) -> None:
    @app.get("/api/trace")
    def trace() -> RequestTrace:
        # A dataclass instance is serialized as it is, not re-validated: only the check sees it.
        real = serve_request(Settings(tokens=4))
        totals = dataclasses.replace(real.totals, speedup_measured="fast")  # type: ignore[arg-type]
        return dataclasses.replace(real, totals=totals)


def _missing_field_in_the_sweep(app: FastAPI) -> None:
    @app.get("/api/sweep", response_model=KSweep)
    def sweep() -> dict[str, Any]:
        body = sweep_k(Settings(tokens=4)).to_dict()
        del body["pays"]
        return body


def _missing_field_in_the_checkpoint(app: FastAPI) -> None:
    with TestClient(create_app(settings=AppSettings())) as real:
        entry = real.get("/api/checkpoint").json()
    del entry["checkpoint"]["acceptedPrefix"]["tokens"]

    @app.get("/api/checkpoint", response_model=CheckpointEntry, response_class=JSONResponse)
    def checkpoint() -> JSONResponse:
        return JSONResponse(entry)  # a Response goes out untouched: only the check sees it


def _twin(route: Callable[[FastAPI], None]) -> schemathesis.Case:
    app = FastAPI()
    route(app)
    twin = schemathesis.openapi.from_asgi("/openapi.json", app)
    (result,) = list(twin.get_all_operations())
    operation = result.ok()
    return operation.Case()


def _failures(exc: BaseException) -> list[BaseException]:
    return list(exc.exceptions) if isinstance(exc, BaseExceptionGroup) else [exc]


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic's "unexpected value" warning
@pytest.mark.parametrize("route", [_wrong_type_in_the_trace, _missing_field_in_the_checkpoint])
def test_the_check_fails_a_body_that_breaks_its_schema(route: Callable[[FastAPI], None]) -> None:
    case = _twin(route)
    with pytest.raises((AssertionError, BaseExceptionGroup)) as caught:
        check(case)
    failures = _failures(caught.value)
    assert any(isinstance(f, JsonSchemaError) for f in failures), failures


def test_a_dict_missing_a_field_never_leaves_the_route() -> None:
    """Where a route returns a dict, FastAPI validates it against the model first."""
    case = _twin(_missing_field_in_the_sweep)
    with pytest.raises(ResponseValidationError) as caught:
        check(case)
    assert [e["loc"] for e in caught.value.errors()] == [("response", "pays")]
