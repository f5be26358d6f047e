"""Route memory at the client level: the contract files, the checkpoint, the manifest, stand-ins."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from fastapi.testclient import TestClient

from app.contract.route import SETTINGS_ADDED_LATER, WORKLOAD_FIELDS
from app.station.views.station import LiveView
from tests.app.forms import PREDICTED, find
from tests.app.view_models import view_of
from witness import Settings
from witness.core.settings import expected_text, field_bounds
from witness.core.theory import break_even_alpha

DOCS = Path(__file__).resolve().parents[3] / "docs"
SCHEMA = json.loads((DOCS / "route-memory.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())


def _doc_examples() -> list[dict[str, object]]:
    text = (DOCS / "route-memory.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    return [json.loads(b) for b in blocks if '"checkpoint"' in b and '"…"' not in b]


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("example", _doc_examples(), ids=lambda e: str(e["station"]))
def test_the_examples_in_the_contract_validate(example: dict[str, object]) -> None:
    VALIDATOR.validate(example)


def test_the_contract_shows_both_checkpoints() -> None:
    assert {e["station"] for e in _doc_examples()} == {"serving", "speculative-decoding"}


def test_the_checkpoint_for_a_state_validates_and_reproduces_it(client: TestClient) -> None:
    entry = client.get(f"/api/checkpoint?{PREDICTED}").json()
    VALIDATOR.validate(entry)
    cp = entry["checkpoint"]
    assert entry["station"] == "speculative-decoding"
    assert cp["prediction"]["intervention"] == "lengthen_k"
    assert cp["settings"] == Settings(k=8).model_dump()
    page: LiveView = view_of(client.get(cp["url"]))
    assert page.settings == Settings(k=8)
    assert cp["acceptedPrefix"]["targetPasses"] == page.trace.totals.target_passes
    assert cp["invariant"]["keepsTarget"] is True
    # The acceptance rate k = 8 needs at c = 0.1 (at k = 1 it would be c itself).
    assert cp["speedupBoundary"]["breakEvenAlpha"] == round(break_even_alpha(8, 0.1), 6)
    assert cp["speedupBoundary"]["breakEvenAlpha"] > 0.1


def test_the_checkpoint_names_the_boundary_and_the_next_repair(client: TestClient) -> None:
    slow = client.get("/api/checkpoint?match=0&draft_cost=0.9").json()["checkpoint"]
    assert slow["speedupBoundary"]["pays"] is False
    assert slow["nextRepair"].startswith("Cheapen the draft or raise the match")
    unsafe = client.get("/api/checkpoint?repair=off").json()["checkpoint"]
    assert unsafe["invariant"]["keepsTarget"] is False
    assert unsafe["nextRepair"].startswith("Turn sampling repair back on")
    assert unsafe["prediction"] is None
    VALIDATOR.validate(client.get("/api/checkpoint?verify=off&draft_cost=0").json())


def test_a_bad_state_gets_a_422_naming_the_field(client: TestClient) -> None:
    r = client.get("/api/checkpoint?k=40")
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["query", "k"]
    assert "from 1 to 16" in r.json()["detail"][0]["msg"]


def test_the_schema_ranges_are_the_settings_ranges() -> None:
    spec = SCHEMA["$defs"]["speculativeCheckpoint"]["properties"]["settings"]
    assert set(spec["properties"]) == set(Settings.model_fields)
    assert set(spec["required"]) == set(Settings.model_fields) - set(SETTINGS_ADDED_LATER)
    for name, prop in spec["properties"].items():
        b = field_bounds(name)
        if "minimum" in prop:
            assert prop["minimum"] == b["min"], name
        if "exclusiveMinimum" in prop:
            assert prop["exclusiveMinimum"] == b["min"], name
            assert "gt" in b, name
        if "maximum" in prop:
            assert prop["maximum"] == b["max"], name
        if "maxLength" in prop:
            assert prop["maxLength"] == b["max_length"], name
    workload = SCHEMA["$defs"]["servingCheckpoint"]["properties"]["workload"]["properties"]
    assert workload["tpotMs"]["maximum"] == field_bounds("tpot_ms")["max"]
    assert workload["tokensToGenerate"]["maximum"] == field_bounds("tokens")["max"]
    assert workload["ttftMs"]["maximum"] == field_bounds("ttft_ms")["max"]


def test_the_manifest_lists_reads_writes_parameters_and_links_that_resolve(
    client: TestClient,
) -> None:
    m = client.get("/station.json").json()
    shape = json.loads((DOCS / "station-manifest.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(shape).validate(m)
    assert client.get(m["links"]["manifestSchema"]).json() == shape
    assert (m["id"], m["number"], m["route"]["position"], m["route"]["of"]) == (
        "speculative-decoding",
        8,
        8,
        10,
    )
    assert m["writes"] == ["tsl.route.speculative-decoding"]
    assert "tsl.route.serving" in m["reads"]
    names = {p["name"] for p in m["queryParameters"]}
    assert set(Settings.model_fields) | {"from", "memory"} <= names
    for name, link in m["links"].items():
        if link is None:
            continue
        r = client.get(link)
        assert r.status_code == 200, f"{name}: {link} -> {r.status_code}"
    assert client.get(m["links"]["schema"]).json() == SCHEMA


def test_with_nothing_configured_the_header_links_open_the_stand_ins(client: TestClient) -> None:
    html = client.get("/station").text
    assert find(html, data_testid="back-to-serving")[0].attrs["href"] == "/serving"
    assert find(html, data_testid="open-cockpit")[0].attrs["href"] == "/route"
    serving = client.get("/serving").text
    for name in ("ttft_ms", "tpot_ms", "tokens", "prompt"):
        (field,) = find(serving, name=name)
        if name != "prompt":
            assert float(field.attrs["max"]) == field_bounds(name)["max"]
    route = client.get("/route").text
    assert route.count('data-station="') == 10


def test_the_serving_stand_in_offers_only_what_the_station_accepts(client: TestClient) -> None:
    """Its lowest value is one the station takes (TPOT is above 0, so 0 is not offered), and
    its help says the range as the station's refusal does."""
    serving = client.get("/serving").text
    for name in WORKLOAD_FIELDS:
        (field,) = find(serving, name=name)
        if field.attrs.get("type") != "number":
            continue
        Settings(**{name: float(field.attrs["min"])})  # accepted, or this raises
        said = re.search(rf'id="sv-{name}-help">([^<]*)</p>', serving)
        assert said is not None and said[1] == f"{expected_text(name).capitalize()}."


def test_configured_urls_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.config import AppSettings
    from app.main import create_app

    app = create_app(settings=AppSettings(serving_url="/s07", cockpit_url="/cockpit"))
    with TestClient(app) as c:
        html = c.get("/station").text
        manifest = c.get("/station.json").json()
    assert find(html, data_testid="back-to-serving")[0].attrs["href"] == "/s07"
    assert manifest["links"]["cockpit"] == "/cockpit"


@pytest.mark.parametrize(
    ("query", "sources"),
    [
        ("", ["default"] * 6),
        (
            "from=serving&tpot_ms=45",
            [
                "default (the link did not carry it)",
                "default (the link did not carry it)",
                "link from Serving",
                "default (the link did not carry it)",
                "default (the link did not carry it)",
                "default (the link did not carry it)",
            ],
        ),
        (
            "tpot_ms=45&tokens=20&memory=tokens",
            [
                "default",
                "default",
                "link (this page's address)",
                "saved Serving checkpoint",
                "default",
                "default",
            ],
        ),
    ],
)
def test_carry_in_names_the_source_of_each_workload_field(
    client: TestClient, query: str, sources: list[str]
) -> None:
    view: LiveView = view_of(client.get(f"/station?{query}"))
    # Batch and context came with the cost of a pass: optional in a checkpoint.
    fields = ["prompt", "ttft_ms", "tpot_ms", "tokens", "batch", "context"]
    assert [r.field for r in view.carry] == fields
    assert [r.source for r in view.carry] == sources


def test_a_carried_workload_stays_spelled_out_in_the_url(client: TestClient) -> None:
    view: LiveView = view_of(client.get("/station?from=serving&tpot_ms=30"))
    query = view.state.query()
    assert query["tpot_ms"] == "30"  # the default value, kept because a link carried it
    assert {"ttft_ms", "tokens", "prompt"} <= set(query)


@pytest.mark.parametrize("query", ["from=elsewhere", "memory=colour"])
def test_bad_carry_in_parameters_are_named(client: TestClient, query: str) -> None:
    r = client.get(f"/station?{query}")
    assert r.status_code == 422
    assert query.split("=")[0] + " must be" in r.text


def test_the_next_panel_leads_on_to_09_and_to_the_study_card() -> None:
    from app.config import AppSettings
    from app.main import create_app

    for next_url, expect_link in (("https://lab.example/09", True), ("", False)):
        app = create_app(settings=AppSettings(next_station_url=next_url))
        with TestClient(app) as c:
            html = c.get("/station").text
            study = find(html, data_testid="next-study")[0].attrs["href"]
            assert c.get(study).status_code == 200
        onward = find(html, data_testid="next-station")[0]
        assert (onward.tag == "a") is expect_link
        assert onward.attrs.get("href", "") == next_url
