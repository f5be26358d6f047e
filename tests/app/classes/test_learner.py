"""A learner in a live class without JavaScript (app/classes/learner.py): joining keeps
the membership in a strict HttpOnly cookie, the station's banner carries a form with the
recorded prediction, and sending it puts it in the tally once per learner; every refusal is
a page that says why, and nothing a request carries reaches a link of another site."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from app.classes.contract import CLASS_PRESETS, LEARNER_COOKIE
from app.classes.learner import FIELDS
from tests.app.classes.helpers import SAME, Clock, classes, cookie_of, open_class

FIRST, SECOND = CLASS_PRESETS[0], CLASS_PRESETS[1]
FORM = re.compile(r'<form method="post" action="/class/predict".*?</form>', re.S)


def learner_of(app_client: TestClient) -> TestClient:
    """A second browser on the same app: its own cookies."""
    return TestClient(app_client.app)


def join(browser: TestClient, code: str) -> str:
    """Join without JavaScript; the learner id the cookie holds."""
    r = browser.post(f"/class/{code}/join", headers=SAME, follow_redirects=False)
    assert r.status_code == 303, r.text
    jar = cookie_of(r.headers["set-cookie"])
    kept = jar[LEARNER_COOKIE]
    assert kept["httponly"] and kept["samesite"].lower() == "strict" and kept["path"] == "/class"
    found, _, learner = kept.value.partition(".")
    assert found == code and re.fullmatch(r"[0-9a-f]{32}", learner)
    return learner


def joined(app_client: TestClient) -> tuple[str, TestClient]:
    """A class opened, and a second browser joined to it without JavaScript."""
    code = open_class(app_client)
    learner = learner_of(app_client)
    join(learner, code)
    return code, learner


def send_form(browser: TestClient, path: str) -> dict[str, str]:
    """The banner's no-JavaScript form on the station at ``path``: its hidden fields."""
    page = browser.get(path)
    assert page.status_code == 200
    form = FORM.search(page.text)
    assert form, "no send form on the page"
    assert form.group(0) in page.text.split("<noscript>", 1)[1]  # inside <noscript> only
    found = re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form.group(0))
    return {name: html.unescape(value) for name, value in found}


def predicted(preset_url: str, pred: str = "raise_match", more: str = "") -> str:
    return preset_url.split("#")[0] + f"&pred={pred}{more}"


def answered(app_client: TestClient, code: str) -> int:
    return int(app_client.get(f"/api/classes/{code}").json()["answered"])


# --------------------------------------------------------------------------- joining


def test_the_join_page_offers_a_no_script_join_that_opens_the_question(
    app_client: TestClient,
) -> None:
    code = open_class(app_client)
    learner = learner_of(app_client)
    page = learner.get(f"/join/{code}").text
    noscript = page.split("<noscript>", 1)[1].split("</noscript>", 1)[0]
    assert f'action="/class/{code}/join"' in noscript and 'method="post"' in noscript
    r = learner.post(f"/class/{code}/join", headers=SAME, follow_redirects=False)
    assert r.headers["location"] == FIRST.url
    assert r.headers["cache-control"] == "no-store"


def test_joining_again_keeps_the_learner_id_and_another_class_gets_a_new_one(
    app_client: TestClient,
) -> None:
    code, other = open_class(app_client), open_class(app_client)
    learner = learner_of(app_client)
    first = join(learner, code)
    assert join(learner, code) == first  # a second scan: counted once
    assert join(learner, other) != first


def test_joining_is_refused_from_another_site_and_for_an_unknown_code(
    app_client: TestClient,
) -> None:
    code = open_class(app_client)
    learner = learner_of(app_client)
    r = learner.post(f"/class/{code}/join", headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and "set-cookie" not in r.headers
    r = learner.post("/class/ABCDEF/join", headers=SAME, follow_redirects=False)
    assert r.status_code == 404 and "There is no open class with code ABCDEF" in r.text
    assert "set-cookie" not in r.headers


# --------------------------------------------------------------------------- the banner's form


def test_the_banner_carries_the_recorded_prediction_on_a_class_question() -> None:
    from app.station.state.query import parse_state
    from app.station.views.station import class_send

    state = parse_state([("pred", "skip_repair"), ("expect_kept", "no"), ("preset", FIRST.id)])
    fields = class_send(state)
    assert fields is not None
    assert fields == {
        "question": FIRST.id,
        "intervention": "skip_repair",
        "faster": "",
        "kept": "no",
        "back": state.url(),
    }
    assert set(fields) == set(FIELDS)
    # Nothing a class could take: no prediction, a skip, or a page that is no class question.
    assert class_send(parse_state([("preset", FIRST.id)])) is None
    assert class_send(parse_state([("pred", "skip"), ("preset", FIRST.id)])) is None
    assert class_send(parse_state([("pred", "raise_match")])) is None


def test_the_page_shows_the_form_inside_noscript_only_beside_such_a_prediction(
    app_client: TestClient,
) -> None:
    fields = send_form(app_client, predicted(FIRST.url, more="&expect_faster=yes"))
    assert fields["question"] == FIRST.id and fields["faster"] == "yes"
    for path in (FIRST.url.split("#")[0], "/station?pred=raise_match"):
        assert not FORM.search(app_client.get(path).text), path


# --------------------------------------------------------------------------- sending


def test_a_joined_learner_sends_once_and_a_new_prediction_replaces_it(
    app_client: TestClient,
) -> None:
    code, learner = joined(app_client)
    fields = send_form(learner, predicted(FIRST.url, more="&expect_faster=yes"))
    r = learner.post("/class/predict", data=fields, headers=SAME)
    assert r.status_code == 200, r.text
    assert f"in class {code}" in html.unescape(r.text)
    assert "Predicted: Raise draft-target match" in r.text and "Faster: yes" in r.text
    assert f'href="{html.escape(fields["back"])}"' in r.text  # back to the station as it was
    assert answered(app_client, code) == 1
    again = send_form(learner, predicted(FIRST.url, "lengthen_k"))
    assert learner.post("/class/predict", data=again, headers=SAME).status_code == 200
    tally = classes(app_client).tally(code)
    assert answered(app_client, code) == 1  # the same learner: replaced, not added
    assert {i: n for i, n in tally.interventions.items() if n} == {"lengthen_k": 1}


def test_a_browser_that_has_not_joined_is_told_so_and_nothing_is_counted(
    app_client: TestClient,
) -> None:
    code = open_class(app_client)
    stranger = learner_of(app_client)
    fields = send_form(stranger, predicted(FIRST.url))
    r = stranger.post("/class/predict", data=fields, headers=SAME)
    assert r.status_code == 409 and "has not joined a class" in r.text
    assert 'href="/join"' in r.text
    assert answered(app_client, code) == 0


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"intervention": "skip"}, "intervention must be one of"),
        ({"intervention": "<b>"}, "intervention must be one of"),
        ({"question": "nope"}, "question must be the id"),
        ({"faster": "maybe"}, "faster must be yes, no or empty"),
        ({"kept": "1"}, "kept must be yes, no or empty"),
        ({"learner": "0" * 32}, "The form may carry only"),
    ],
)
def test_a_form_the_banner_never_writes_is_refused_naming_the_field(
    app_client: TestClient, change: dict[str, str], named: str
) -> None:
    code, learner = joined(app_client)
    fields = send_form(learner, predicted(FIRST.url)) | change
    r = learner.post("/class/predict", data=fields, headers=SAME)
    assert r.status_code == 422 and named in r.text
    assert "<b>" not in r.text
    assert answered(app_client, code) == 0


def test_sending_is_refused_from_another_site_and_past_the_form_size(
    app_client: TestClient,
) -> None:
    code, learner = joined(app_client)
    fields = send_form(learner, predicted(FIRST.url))
    r = learner.post("/class/predict", data=fields, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403
    assert learner.post("/class/predict", data=fields).status_code == 403  # no Origin at all
    big = fields | {"back": "/station?" + "x" * 2000}
    assert learner.post("/class/predict", data=big, headers=SAME).status_code == 403
    assert answered(app_client, code) == 0


@pytest.mark.parametrize(
    "back",
    [
        "//evil.example/station",
        "https://evil.example/",
        "javascript:alert(1)",
        "/station#x",
        "/studyx",
        "/station\\..\\x",
        "/station?a b",
    ],
)
def test_the_link_back_is_the_stations_own_address_or_the_question(
    app_client: TestClient, back: str
) -> None:
    code, learner = joined(app_client)
    fields = send_form(learner, predicted(FIRST.url)) | {"back": back}
    r = learner.post("/class/predict", data=fields, headers=SAME)
    assert r.status_code == 200
    assert html.escape(back) not in re.findall(r'href="([^"]*)"', r.text)
    assert f'href="{html.escape(FIRST.url)}" data-testid="class-sent-back"' in r.text


def test_a_question_moved_on_or_revealed_is_refused_with_where_to_go(
    app_client: TestClient, clock: Clock
) -> None:
    code, learner = joined(app_client)
    fields = send_form(learner, predicted(FIRST.url))
    assert app_client.post(f"/class/{code}/next", headers=SAME).status_code == 200
    r = learner.post("/class/predict", data=fields, headers=SAME)
    assert r.status_code == 409 and "moved on" in r.text
    assert f'href="{html.escape(SECOND.url)}" data-testid="class-sent-go"' in r.text
    on_second = send_form(learner, predicted(SECOND.url))
    assert app_client.post(f"/class/{code}/reveal", headers=SAME).status_code == 200
    r = learner.post("/class/predict", data=on_second, headers=SAME)
    assert r.status_code == 409 and "has been revealed" in r.text
    assert answered(app_client, code) == 0
    clock.now += timedelta(hours=25).total_seconds()  # the class has expired
    r = learner.post("/class/predict", data=on_second, headers=SAME)
    assert r.status_code == 404 and f"no open class with code {code}" in r.text


def test_a_tampered_cookie_is_no_membership(app_client: TestClient) -> None:
    code = open_class(app_client)
    learner = learner_of(app_client)
    fields = send_form(learner, predicted(FIRST.url))
    for value in (f"{code}.xyz", f"{code}", f"NOPE00.{'a' * 32}", f"{code}.{'A' * 32}", "x" * 80):
        learner.cookies.set(LEARNER_COOKIE, value, path="/class")
        r = learner.post("/class/predict", data=fields, headers=SAME)
        assert r.status_code in (404, 409), value
        learner.cookies.clear()
    assert answered(app_client, code) == 0
