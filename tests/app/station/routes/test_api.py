"""The JSON API returns the witness's own results; bad input is a 422, never a 500."""

from __future__ import annotations

import math
import re

import pytest
from fastapi.testclient import TestClient

from witness import Settings, optimal_k, serve_request
from witness.judge.evaluation import first_position
from witness.judge.expected import ensemble_of

# The JSON routes that take the instrument's settings as their query.
SETTINGS_ROUTES = (
    "/api/trace",
    "/api/sweep",
    "/api/batch",
    "/api/race",
    "/api/distributions",
    "/api/evaluation",
)


def test_trace_is_exactly_the_witness_to_dict(client: TestClient) -> None:
    r = client.get("/api/trace", params={"match": 0.4, "k": 6, "seed": 12})
    assert r.status_code == 200
    body = r.json()
    verdict = body.pop("verdict")
    assert body == serve_request(Settings(match=0.4, k=6, seed=12)).to_dict()
    assert verdict["estimator"] == "exact-given-text" and verdict["n"] == 32


@pytest.mark.parametrize(
    ("params", "estimator"),
    [
        ({}, "exact-given-text"),
        ({"greedy": "true"}, "exact-given-text"),
        ({"repair": "false"}, "served"),
        ({"tree_width": 2}, "served"),
        ({"verify": "false", "draft_cost": 0}, "served"),
    ],
)
def test_the_trace_carries_its_states_verdict_ensemble(
    client: TestClient, params: dict[str, object], estimator: str
) -> None:
    """The verdict beside the request: the state's ensemble at the state's price, named."""
    s = Settings.model_validate(params)
    verdict = client.get("/api/trace", params=params).json()["verdict"]
    ens = ensemble_of(s)
    est = ens.speedup(s.draft_cost)
    assert verdict["estimator"] == ens.estimator == estimator
    assert verdict["n"] == len(ens.seeds) == est.n
    # Distinct texts: all of them, one for greedy decoding, none for served requests.
    texts = {"served": None, "exact-given-text": 1 if s.greedy else verdict["n"]}[estimator]
    assert verdict["texts"] == texts
    assert verdict["tokens_per_pass"] == ens.tokens_per_pass and verdict["alpha"] == ens.alpha
    assert verdict["confidence"] == 0.99
    if math.isinf(est.mean):  # verify off at c = 0: unbounded, said as null
        assert verdict["speedup"] is verdict["ci_low"] is verdict["ci_high"] is None
    else:
        assert verdict["speedup"] == est.mean
        assert verdict["ci_low"] <= verdict["speedup"] <= verdict["ci_high"]
    # The OpenAPI description names every field of it.
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert set(schema["Verdict"]["properties"]) == set(verdict)


def test_sweep_marks_the_formula_optimum(client: TestClient) -> None:
    body = client.get("/api/sweep", params={"draft_cost": 0.05}).json()
    assert [p["k"] for p in body["points"]] == list(range(1, 17))
    assert body["optimal_k"] == optimal_k(body["alpha"], 0.05, 16)
    best = max(body["points"], key=lambda p: (round(p["speedup_expected"], 12), -p["k"]))
    assert best["k"] == body["optimal_k"]


def test_distributions_are_exact_and_sum_to_one(client: TestClient) -> None:
    body = client.get("/api/distributions", params={"match": 0.3}).json()
    p, _ = first_position(Settings(match=0.3))
    assert body["p"] == pytest.approx(p.tolist(), abs=1e-15)
    for law in ("lossless", "no_repair", "no_verify"):
        assert math.isclose(sum(body["output"][law]), 1.0, abs_tol=1e-12)
    assert (
        max(abs(a - b) for a, b in zip(body["output"]["lossless"], body["p"], strict=True)) < 1e-12
    )
    assert len(body["vocab"]) == len(body["p"])


def test_evaluation_judges_each_mode(client: TestClient) -> None:
    body = client.get("/api/evaluation").json()
    verdicts = {m["mode"]: m["keeps_target"] for m in body["modes"]}
    assert verdicts == {"lossless": True, "no_repair": False, "no_verify": False}


@pytest.mark.parametrize(
    ("params", "field", "range_text"),
    [
        ({"k": 0}, "k", "from 1 to 16"),
        ({"k": 17}, "k", "from 1 to 16"),
        ({"match": 1.5}, "match", "from 0 to 1"),
        ({"match": "nan"}, "match", "from 0 to 1"),
        ({"match": "inf"}, "match", "from 0 to 1"),
        ({"draft_cost": "-0.1"}, "draft_cost", "from 0 to 1"),
        ({"tokens": "1e9"}, "tokens", "from 1 to 256"),
        ({"seed": "9" * 40}, "seed", "from 0 to 2147483647"),
        ({"verify": "perhaps"}, "verify", "true or false"),
        ({"prompt": "x" * 500}, "prompt", "at most 200 characters"),
    ],
)
@pytest.mark.parametrize("path", SETTINGS_ROUTES)
def test_bad_values_are_a_422_naming_field_and_range(
    client: TestClient, path: str, params: dict[str, object], field: str, range_text: str
) -> None:
    r = client.get(path, params=params)
    assert r.status_code == 422
    (error,) = r.json()["detail"]
    assert error["loc"] == ["query", field]
    assert error["msg"].startswith(f"{field} must be")
    assert range_text in error["msg"]


def test_unknown_parameters_are_refused_by_name(client: TestClient) -> None:
    r = client.get("/api/trace", params={"temperature": 0.7})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["query", "temperature"]


def test_openapi_describes_the_api_and_no_cdn_docs_are_served(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path in (*SETTINGS_ROUTES, "/healthz"):
        assert path in spec["paths"]
    params = {p["name"] for p in spec["paths"]["/api/trace"]["get"]["parameters"]}
    assert params == set(Settings.model_fields)
    assert client.get("/docs").status_code == 404
    # A fresh app has not needed its class store yet, so it says so.
    assert client.get("/healthz").json() == {"status": "ok", "classes": "not opened"}


def test_batch_is_the_witness_table_at_the_stations_alpha(client: TestClient) -> None:
    from app.station.services import Witness
    from witness.cost.batching import batch_table

    params = {"machine": "h100", "match": 0.9, "k": 4}
    body = client.get("/api/batch", params=params).json()
    s = Settings(**params)
    expected = batch_table(s, Witness().ensemble(s).alpha).to_dict()
    assert body == expected
    assert body["stops_paying"] is not None  # this pair on an H100 stops paying in range
    assert [p["batch"] for p in body["points"]] == [2**i for i in range(10)]


def test_race_names_every_policy_and_the_querys_own_settings(client: TestClient) -> None:
    params = {"draft_source": "adversary", "match": 0.0, "tpot_ms": 12.5}
    body = client.get("/api/race", params=params).json()
    assert body["race"]["settings"]["tpot_ms"] == 12.5  # the query's, not the memo key's
    policies = [r["policy"] for r in body["race"]["runs"]]
    assert policies == ["fixed", "heuristic", "confidence", "oracle", "recovery"]
    assert [p for p, _ in body["seeded"]["speedups"]] == policies
    for run in body["race"]["runs"]:
        assert sum(run["emitted"]) == 48 and run["target_passes"] == len(run["drafted"])


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"match": 0.0, "draft_cost": 0.35},
        {"repair": "off"},
        {"greedy": "on", "match": 0.2},
        {"machine": "h100", "batch": 64},
        {"verify": "off"},
        {"match": 1.0, "k": 8},
        {"match": 0.0},
        {"k": 1},
        {"k": 16},
        {"greedy": "on", "verify": "off"},
        {"models": "early-exit", "match": 0.0},
        {"models": "small-draft", "repair": "off"},
        {"models": "early-exit", "verify": "off"},
    ],
    ids=[
        "defaults",
        "too slow",
        "repair off",
        "greedy",
        "h100",
        "verify off",
        "p = q",
        "match 0",
        "k 1",
        "k 16",
        "greedy verify off",
        "early exit alone",
        "small draft repair off",
        "early exit verify off",
    ],
)
def test_the_api_and_the_station_give_one_verdict(
    client: TestClient, query: dict[str, object]
) -> None:
    """The savings gate on the page quotes the numbers /api/trace gives for the same state."""
    from app.station.views import fmt
    from tests.app.view_models import view_of

    params = {k: ("true" if v == "on" else "false" if v == "off" else v) for k, v in query.items()}
    verdict = client.get("/api/trace", params=params).json()["verdict"]
    view = view_of(client.get("/station", params={"pred": "skip", **query}))
    sentence = view.invariant.savings.sentence
    # One verdict on the speed claim: the gate's status, and void exactly where correctness
    # fails first (verify off, or the exact check away from p).
    assert verdict["savings"] == view.invariant.savings.status
    lost = not view.settings.verify or not view.invariant.correctness.holds
    assert (verdict["savings"] == "void") == lost
    unearned = ("verify off", "verify off, copying", "not kept")
    assert (verdict["savings_reason"] in unearned) == (verdict["savings"] == "void")
    if lost:  # not earned: the draft's own speed, or another distribution's
        assert "not earned" in sentence
        if not view.settings.verify:
            assert verdict["estimator"] == "served"
        return
    assert fmt.speedup(verdict["speedup"]) in sentence
    if verdict["ci_low"] != verdict["ci_high"]:
        assert f"{verdict['ci_low']:.2f}–{verdict['ci_high']:.2f}×" in sentence
    if view.settings.greedy:  # one text, whatever the seed
        assert (
            verdict["estimator"] == "exact-given-text" and "greedy decoding's one text" in sentence
        )
    else:
        unit = "target texts" if verdict["estimator"] == "exact-given-text" else "seeded requests"
        assert f"{verdict['n']} {unit}" in sentence


MEANS = re.compile(
    r"mean (\S+) → (\S+) over (\d+ (?:target texts|seeded requests)"
    r"|greedy decoding's one text \(the same at all \d+ seeds\))"
)


@pytest.mark.parametrize(
    "preset", ["well-matched", "greedy", "p-equals-q", "unsafe-shortcut", "mismatched"]
)
def test_the_class_reveal_and_the_station_say_the_same_of_an_intervention(
    client: TestClient, preset: str
) -> None:
    """The reveal's verdict on each intervention quotes the means the learner's station shows
    after recording it at the preset: one comparison, one estimator."""
    from app.classes.views import witnessed
    from app.contract.route import Intervention
    from app.station.state.presets import BY_ID
    from tests.app.view_models import view_of

    values = {
        k: ("on" if v is True else "off" if v is False else v)
        for k, v in BY_ID[preset].values.items()
    }
    for intervention in Intervention:
        if intervention is Intervention.SKIP:
            continue
        page = client.get("/station/predict", params={**values, "pred": intervention.value})
        station = view_of(client.get(page.url)).verdict.sentence
        reveal = witnessed(preset, intervention, client.app.state.witness)
        found, said = MEANS.search(station), MEANS.search(reveal.speed)
        if reveal.change == "same":
            assert ("no change" in reveal.speed) == reveal.claim.earned
            assert "did not change" in reveal.speed or reveal.claim.earned
            assert "no difference" in station or station.startswith("Nothing has changed")
            continue
        assert found and said and found.groups() == said.groups(), (station, reveal.speed)
        words = {
            "faster": "made it faster",
            "slower": "made it slower",
            "within noise": "no more than noise",
        }
        assert words[reveal.change] in station
