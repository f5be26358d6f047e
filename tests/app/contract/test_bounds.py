"""What the station saves, the schema takes back: the reopen link's bound is derived from the
longest link the station writes, and a prompt is counted in characters (code points) on both
sides, as pydantic, jsonschema and Ajv all count it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import parse_qsl, quote

import jsonschema
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from app.contract.bounds import longest_station_url, station_url_max
from app.contract.schema import STATION_URL_MAX, route_memory_schema
from app.station.state.query import number_text, parse_state
from tests.longest import longest_query
from witness import Settings
from witness.core.settings import field_bounds

DOCS = Path(__file__).resolve().parents[3] / "docs"
SCHEMA = json.loads((DOCS / "route-memory.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())


PROMPTS = {
    "cjk": "漢" * 200,  # three bytes each in UTF-8: the 2 146-character link
    "emoji": "😀" * 200,  # four bytes each, two UTF-16 units each
    "widest": "\U0010ffff" * 200,
    "emoji-101": "😀" * 101,  # 202 UTF-16 units, 101 characters
}


@pytest.mark.parametrize("name", sorted(PROMPTS))
def test_the_longest_checkpoint_the_station_makes_validates(client: TestClient, name: str) -> None:
    query = longest_query(PROMPTS[name])
    assert not parse_state(parse_qsl(query)).problems  # every option, taken together
    r = client.get(f"/api/checkpoint?{query}")
    assert r.status_code == 200, r.text
    entry = r.json()
    VALIDATOR.validate(entry)
    url = entry["checkpoint"]["url"]
    assert len(url) <= STATION_URL_MAX
    assert entry["checkpoint"]["settings"]["prompt"] == PROMPTS[name]


def test_the_url_bound_is_the_derived_longest_link_not_a_round_number() -> None:
    schema_url = route_memory_schema()["$defs"]["speculativeCheckpoint"]["properties"]["url"]
    assert schema_url["maxLength"] == STATION_URL_MAX == station_url_max()
    assert SCHEMA["$defs"]["speculativeCheckpoint"]["properties"]["url"]["maxLength"] == (
        STATION_URL_MAX
    )
    longest = longest_station_url()
    assert longest.startswith("/station?")
    # The prompt alone takes 12 characters a character: four UTF-8 bytes, each %XX.
    assert f"prompt={'%F4%8F%BF%BF' * 200}&" in longest
    for part in ("embed=1", "slice=1", "race=1", "view=projector", "block=255", "sub=40"):
        assert part in longest.split("?", 1)[1].split("&")


def test_the_prompt_is_bounded_in_characters_everywhere() -> None:
    """pydantic's max_length, the schema's maxLength (jsonschema and Ajv count code points)."""
    limit = field_bounds("prompt")["max_length"]
    Settings(prompt="😀" * limit)  # 2 × limit UTF-16 units: still within the bound
    with pytest.raises(ValueError, match="200"):
        Settings(prompt="😀" * (limit + 1))
    prompt_schema = SCHEMA["$defs"]["speculativeCheckpoint"]["properties"]["settings"]
    validator = jsonschema.Draft202012Validator(prompt_schema["properties"]["prompt"])
    assert validator.is_valid("😀" * limit)
    assert not validator.is_valid("😀" * (limit + 1))


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=sys.float_info.min, max_value=1e15))
def test_no_float_in_range_writes_longer_than_the_longest(x: float) -> None:
    assert len(quote(number_text(x))) <= len(quote(number_text(sys.float_info.min)))
