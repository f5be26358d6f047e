"""The class's JSON API through the app (TestClient): what each route answers, and what it
refuses: a wrong or missing key, a cross-site request, an oversized body, a script in every
field, an unknown or expired code, too many submissions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.classes.database import Database, sqlite_dialect
from app.classes.limits import Limits
from app.classes.models import Predicted
from app.classes.records import PREDICTABLE, QUESTIONS
from app.classes.service import ClassRoom
from app.config import AppSettings
from app.contract.route import Intervention
from app.main import create_app
from tests.app.classes.helpers import Clock

LEARNER = "learner-0001-abcdefgh"
XSS = "<script>alert(1)</script>"
PAYLOADS = [
    XSS,
    '"><img src=x onerror=alert(1)>',
    "javascript:alert(1)",
    "</textarea><svg onload=alert(1)>",
]
CROSS_SITE = [
    {"origin": "http://evil.example"},
    {"origin": "null"},
    {"sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},
    {"origin": "http://testserver", "sec-fetch-site": "cross-site"},
]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(tmp_path: Path, clock: Clock) -> Iterator[TestClient]:
    app = create_app(settings=AppSettings(data_dir=str(tmp_path)))
    path = tmp_path / "classes.sqlite3"
    app.state.classes = ClassRoom(
        lambda: Database(sqlite_dialect(path)),
        retention=timedelta(hours=24),
        clock=clock,
        limits=Limits(learner=5),
    )
    with TestClient(app) as c:
        yield c


def opened(client: TestClient) -> dict[str, Any]:
    r = client.post("/api/classes", json={})
    assert r.status_code == 201, r.text
    return dict(r.json())


def predict(client: TestClient, code: str, **fields: Any) -> Any:
    body = {"learner": LEARNER, "question": QUESTIONS[0], "intervention": "raise_match"}
    return client.post(f"/api/classes/{code}/predictions", json={**body, **fields})


def host(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_the_api_s_interventions_are_the_station_s_five() -> None:
    assert Predicted.__args__ == PREDICTABLE  # type: ignore[attr-defined]
    assert set(PREDICTABLE) == {i.value for i in Intervention} - {"skip"}


def test_a_class_from_open_to_reveal(client: TestClient) -> None:
    c = opened(client)
    assert set(c) == {"code", "host_key", "join_url", "host_url", "expires_at"}
    assert c["join_url"] == f"http://testserver/join/{c['code']}"
    # The key only after '#', which a browser never sends (the handover page takes it).
    assert c["host_url"] == f"http://testserver/class/{c['code']}/host#key={c['host_key']}"
    info = client.get(f"/api/classes/{c['code']}").json()
    assert info["question"] == QUESTIONS[0] and info["answered"] == 0 and not info["revealed"]
    assert "host_key" not in info and c["host_key"] not in json.dumps(info)

    r = predict(client, c["code"], faster=True, kept=False)
    assert r.status_code == 200 and r.json()["counted"] is True and r.json()["answered"] == 1
    predict(client, c["code"], learner="learner-0002-abcdefgh", intervention="skip_repair")
    tally = client.get(f"/api/classes/{c['code']}/tally").json()
    assert tally["answered"] == 2
    assert tally["interventions"] == {
        **dict.fromkeys(PREDICTABLE, 0),
        "raise_match": 1,
        "skip_repair": 1,
    }
    assert tally["faster"] == {"yes": 1, "no": 0, "unsaid": 1}
    assert tally["kept"] == {"yes": 0, "no": 1, "unsaid": 1}
    assert tally["by_intervention"]["raise_match"]["kept"] == {"yes": 0, "no": 1, "unsaid": 0}

    revealed = client.post(f"/api/classes/{c['code']}/reveal", headers=host(c["host_key"]))
    assert revealed.status_code == 200 and revealed.json()["revealed"] is True
    late = predict(client, c["code"], intervention="lengthen_k")
    assert late.status_code == 409 and "revealed" in late.json()["detail"]
    moved = client.post(
        f"/api/classes/{c['code']}/question",
        json={"preset": QUESTIONS[2]},
        headers=host(c["host_key"]),
    )
    assert moved.json()["question"] == QUESTIONS[2] and not moved.json()["revealed"]
    assert (
        client.get(f"/api/classes/{c['code']}/tally?question={QUESTIONS[0]}").json()["answered"]
        == 2
    )
    assert client.get(f"/api/classes/{c['code']}/tally").json()["answered"] == 0
    assert r.headers["cache-control"] == "no-store"


# --- the instructor's key ----------------------------------------------------------------------


@pytest.mark.parametrize("auth", [None, "Bearer wrong", "Bearer ", "Basic abc", "bearer"])
def test_instructor_actions_without_the_key_are_403_and_change_nothing(
    client: TestClient, auth: str | None
) -> None:
    c, other = opened(client), opened(client)
    predict(client, c["code"])
    headers = {"Authorization": auth} if auth else {}
    before = (
        client.get(f"/api/classes/{c['code']}").json(),
        client.get(f"/api/classes/{c['code']}/tally").json(),
    )
    for path, body in [("reveal", None), ("question", {"preset": QUESTIONS[3]})]:
        r = client.post(f"/api/classes/{c['code']}/{path}", json=body, headers=headers)
        assert r.status_code == 403, (path, r.text)
        r = client.post(
            f"/api/classes/{c['code']}/{path}", json=body, headers=host(other["host_key"])
        )
        assert r.status_code == 403
    after = (
        client.get(f"/api/classes/{c['code']}").json(),
        client.get(f"/api/classes/{c['code']}/tally").json(),
    )
    assert after == before


# --- cross-site requests ------------------------------------------------------------------------


@pytest.mark.parametrize("headers", CROSS_SITE, ids=repr)
def test_a_cross_site_request_is_403_and_stores_nothing(
    client: TestClient, headers: dict[str, str]
) -> None:
    c = opened(client)
    body = {"learner": LEARNER, "question": QUESTIONS[0], "intervention": "raise_match"}
    r = client.post(f"/api/classes/{c['code']}/predictions", json=body, headers=headers)
    assert r.status_code == 403 and "own pages" in r.json()["detail"]
    for path, payload in [("reveal", None), ("question", {"preset": QUESTIONS[3]})]:
        r = client.post(
            f"/api/classes/{c['code']}/{path}",
            json=payload,
            headers={**headers, **host(c["host_key"])},
        )
        assert r.status_code == 403
    assert client.post("/api/classes", json={}, headers=headers).status_code == 403
    info = client.get(f"/api/classes/{c['code']}").json()
    assert info["answered"] == 0 and not info["revealed"] and info["question"] == QUESTIONS[0]


def test_a_form_post_without_origin_is_refused_and_the_station_s_own_pages_pass(
    client: TestClient,
) -> None:
    c = opened(client)
    form = "learner=x&question=y"
    r = client.post(
        f"/api/classes/{c['code']}/predictions",
        content=form,
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 403  # no Origin, no Sec-Fetch-Site, not JSON, no key
    assert client.post("/api/classes", content=b"").status_code == 403
    own = {"origin": "http://testserver", "sec-fetch-site": "same-origin"}
    assert predict(client, c["code"]).status_code == 200
    body = {"learner": LEARNER, "question": QUESTIONS[0], "intervention": "lengthen_k"}
    r = client.post(f"/api/classes/{c['code']}/predictions", json=body, headers=own)
    assert r.status_code == 200
    assert client.post("/api/classes", headers=own).status_code == 201
    # The key alone (curl) is enough for an instructor action without a body.
    assert (
        client.post(f"/api/classes/{c['code']}/reveal", headers=host(c["host_key"])).status_code
        == 200
    )


# --- bodies ---------------------------------------------------------------------------------------


def test_an_oversized_body_is_413_before_it_is_parsed(client: TestClient) -> None:
    c = opened(client)
    huge = json.dumps(
        {
            "learner": LEARNER,
            "question": QUESTIONS[0],
            "intervention": "raise_match",
            "pad": "x" * 5000,
        }
    )
    r = client.post(
        f"/api/classes/{c['code']}/predictions",
        content=huge,
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413 and "2048 bytes" in r.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it is read
        for _ in range(10):
            yield b" " * 1000

    r = client.post(
        f"/api/classes/{c['code']}/predictions",
        content=chunks(),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413
    assert client.get(f"/api/classes/{c['code']}").json()["answered"] == 0


# --- scripts in every field ----------------------------------------------------------------------


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize(
    "field", ["learner", "question", "intervention", "faster", "kept", "extra"]
)
def test_a_script_in_any_field_is_refused_and_never_echoed(
    client: TestClient, field: str, payload: str
) -> None:
    c = opened(client)
    body: dict[str, Any] = {
        "learner": LEARNER,
        "question": QUESTIONS[0],
        "intervention": "raise_match",
    }
    body[payload if field == "extra" else field] = payload
    r = client.post(f"/api/classes/{c['code']}/predictions", json=body)
    assert r.status_code == 422
    assert payload not in r.text and "<" not in r.text
    names = [e["loc"] for e in r.json()["detail"]]
    assert names == [["body", field if field != "extra" else "(unexpected)"]]
    assert client.get(f"/api/classes/{c['code']}").json()["answered"] == 0
    q = client.post(
        f"/api/classes/{c['code']}/question", json={"preset": payload}, headers=host(c["host_key"])
    )
    assert q.status_code == 422 and payload not in q.text
    t = client.get(f"/api/classes/{c['code']}/tally", params={"question": payload})
    assert t.status_code == 422 and payload not in t.text and "<" not in t.text


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_script_as_the_code_is_a_404_that_does_not_echo_it(
    client: TestClient, payload: str
) -> None:
    from urllib.parse import quote

    path = quote(payload, safe="")
    for r in [
        client.get(f"/api/classes/{path}"),
        client.get(f"/api/classes/{path}/tally"),
        predict(client, path),
        client.post(f"/api/classes/{path}/reveal", headers=host("k")),
    ]:
        assert r.status_code == 404, r.text
        # A "/" in it makes another path, which no route answers (FastAPI's "Not Found").
        assert "not a class code" in r.json()["detail"] or "/" in payload
        assert payload not in r.text and "<" not in r.text


# --- unknown and expired codes, rate limits --------------------------------------------------------


def test_an_unknown_or_expired_code_is_a_404_naming_it(client: TestClient, clock: Clock) -> None:
    r = client.get("/api/classes/ABCDEF")
    assert r.status_code == 404
    assert r.json()["detail"].startswith("There is no open class with code ABCDEF")
    c = opened(client)
    clock.advance(24 * 3600)
    for r in [
        client.get(f"/api/classes/{c['code']}"),
        client.get(f"/api/classes/{c['code']}/tally"),
        predict(client, c["code"]),
        client.post(f"/api/classes/{c['code']}/reveal", headers=host(c["host_key"])),
    ]:
        assert r.status_code == 404 and c["code"] in r.json()["detail"]
    assert client.get(f"/api/classes/{c['code'].lower()}").status_code == 404


def test_too_many_submissions_are_429_with_retry_after(client: TestClient, clock: Clock) -> None:
    c = opened(client)
    for i in PREDICTABLE:  # five: this app's per-learner limit
        assert predict(client, c["code"], intervention=i).status_code == 200
    r = predict(client, c["code"], intervention="raise_match")
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    assert "learner" in r.json()["detail"]
    assert client.get(f"/api/classes/{c['code']}/tally").json()["interventions"]["skip_repair"] == 1
    clock.advance(10)
    assert predict(client, c["code"], intervention="raise_match").status_code == 200


def test_a_bad_value_is_a_422_naming_the_field(client: TestClient) -> None:
    c = opened(client)
    cases: list[tuple[str, Any]] = [
        ("learner", "short"),
        ("learner", 12345678901234567890),
        ("question", "nope"),
        ("intervention", "skip"),
        ("faster", "yes"),
        ("kept", 1),
    ]
    for field, value in cases:
        r = predict(client, c["code"], **{field: value})
        assert r.status_code == 422, (field, value)
        assert [e["loc"] for e in r.json()["detail"]] == [["body", field]]
    r = client.post(
        f"/api/classes/{c['code']}/predictions",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422
    r = client.post(
        f"/api/classes/{c['code']}/predictions",
        content=b"'\xff\xfe<script>",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body"]
    assert "script" not in r.text


def test_the_api_is_documented_with_typed_answers(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    ops = {
        (p, m): op
        for p, item in spec["paths"].items()
        if p.startswith("/api/classes")
        for m, op in item.items()
    }
    assert set(ops) == {
        ("/api/classes", "post"),
        ("/api/classes/{code}", "get"),
        ("/api/classes/{code}/predictions", "post"),
        ("/api/classes/{code}/tally", "get"),
        ("/api/classes/{code}/question", "post"),
        ("/api/classes/{code}/reveal", "post"),
        ("/api/classes/{code}/lock", "post"),
        ("/api/classes/{code}/unlock", "post"),
        ("/api/classes/{code}/learners/{learner}", "delete"),
    }
    for (path, method), op in ops.items():
        assert op["tags"] == ["class"]
        ok = op["responses"]["201" if path == "/api/classes" else "200"]
        assert "$ref" in ok["content"]["application/json"]["schema"], path
        if path != "/api/classes":
            assert "404" in op["responses"]
        if method in ("post", "delete"):
            assert {"403", "413"} <= set(op["responses"])
    for path, method in (
        ("/api/classes/{code}/reveal", "post"),
        ("/api/classes/{code}/question", "post"),
        ("/api/classes/{code}/lock", "post"),
        ("/api/classes/{code}/unlock", "post"),
        ("/api/classes/{code}/learners/{learner}", "delete"),
        ("/api/classes", "post"),
    ):
        params = {p["name"]: p for p in ops[(path, method)]["parameters"]}
        assert params["Authorization"]["in"] == "header"


def test_storage_that_does_not_answer_is_a_503_not_a_500(tmp_path: Path) -> None:
    from app.classes.database import postgres_dialect

    app = create_app(settings=AppSettings(data_dir=str(tmp_path)))
    nowhere = f"postgresql://nobody@/none?host={tmp_path}/no-such-socket&connect_timeout=1"
    app.state.classes = ClassRoom(
        lambda: Database(postgres_dialect(nowhere)), retention=timedelta(hours=1)
    )
    with TestClient(app) as c:
        for r in [c.get("/api/classes/ABCDEF"), c.post("/api/classes", json={})]:
            assert r.status_code == 503 and r.headers["retry-after"] == "1"
            assert "storage" in r.json()["detail"]
