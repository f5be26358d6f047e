"""The trace's JSON: strict, and the settings and sizes it reports are the request's."""

from __future__ import annotations

import json

import pytest

from tests.witness.served import IDS, SETTINGS
from witness import Settings, serve_request


@pytest.mark.parametrize("s", SETTINGS, ids=IDS)
def test_to_dict_is_strict_json(s: Settings) -> None:
    trace = serve_request(s)
    data = trace.to_dict()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text) == data
    assert data["settings"] == s.model_dump()
    assert len(data["blocks"]) == trace.totals.blocks
    assert data["totals"]["tokens"] == s.tokens
