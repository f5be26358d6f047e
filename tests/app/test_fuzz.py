"""Schemathesis over the OpenAPI description: no generated request may produce a 500.

Five endpoints × 200 examples = 1 000 generated cases, seeded (derandomised) so the run is
the same every time. Every response must match its documented shape, and a 422 is the only
allowed answer to bad input.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from app.config import AppSettings
from app.main import create_app

schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(settings=AppSettings()))


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_no_generated_request_breaks_the_api(case: schemathesis.Case) -> None:
    response = case.call()
    assert response.status_code < 500, f"{case.path} {case.query} -> {response.status_code}"
    if response.status_code == 422:
        for err in response.json()["detail"]:
            assert err["loc"][0] == "query", err
            assert err["msg"], err
    case.validate_response(response)
