"""The live class's pages at the client level: opening a class, the host key moved into a
cookie and out of the address, instructor actions refused without the key or from another
site (and nothing changed), unknown and expired codes answered with a page, not a 500."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.classes.contract import CLASS_PRESETS, HOST_COOKIE
from tests.app.classes.helpers import LEARNERS, SAME, Clock, classes, cookie_of, open_class

# --------------------------------------------------------------------------- opening


def test_the_open_page_is_a_form_that_posts(app_client: TestClient) -> None:
    r = app_client.get("/class")
    assert r.status_code == 200
    assert re.search(r'<form method="post" action="/class"', r.text)
    assert 'data-testid="open-class"' in r.text
    assert "deleted 24 hours after it opens" in r.text  # the settings' retention


def test_opening_a_class_keeps_its_key_in_a_strict_httponly_cookie_never_in_an_address(
    app_client: TestClient,
) -> None:
    r = app_client.post("/class", headers=SAME, follow_redirects=False)
    assert r.status_code == 303
    code = r.headers["location"].removeprefix("/class/")
    morsel = cookie_of(r.headers["set-cookie"])[HOST_COOKIE]
    key = morsel.value
    assert len(key) >= 32
    assert morsel["path"] == f"/class/{code}"
    assert morsel["httponly"] and morsel["samesite"].lower() == "strict"
    assert key not in r.headers["location"]
    assert classes(app_client).is_host(code, key)
    page = app_client.get(f"/class/{code}")
    assert page.status_code == 200
    assert key not in page.text  # the projector never shows it
    assert page.headers["cache-control"] == "no-store"
    assert 'data-testid="reveal"' in page.text  # this browser is the instructor's
    assert f'data-testid="class-code">{code}<' in page.text
    assert f"http://testserver/join/{code}" in page.text
    assert re.search(r'<svg role="img" aria-label="QR code for http://testserver/join/', page.text)


def test_the_api_s_host_url_hands_the_key_over_in_a_form_body_never_an_address(
    app_client: TestClient,
) -> None:
    opened = classes(app_client).open("http://testserver")
    path, _, fragment = opened.host_url.removeprefix("http://testserver").partition("#")
    assert path == f"/class/{opened.code}/host" and fragment == f"key={opened.host_key}"
    fresh = TestClient(app_client.app)
    page = fresh.get(path)  # what the server sees of host_url: never the part after '#'
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert re.search(rf'<form method="post" action="/class/{opened.code}/host"', page.text)
    assert '<input type="password" id="host-key" name="key"' in page.text
    assert '<script type="module" src="/static/js/host.js">' in page.text
    assert "set-cookie" not in page.headers and 'data-testid="host-from-query"' not in page.text

    r = fresh.post(path, data={"key": opened.host_key}, headers=SAME, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/class/{opened.code}"
    morsel = cookie_of(r.headers["set-cookie"])[HOST_COOKIE]
    assert morsel.value == opened.host_key and morsel["path"] == f"/class/{opened.code}"
    assert morsel["httponly"] and morsel["samesite"].lower() == "strict"
    assert r.headers["cache-control"] == "no-store"
    dashboard = fresh.get(r.headers["location"])
    assert 'data-testid="reveal"' in dashboard.text and opened.host_key not in dashboard.text


def test_a_key_in_the_address_s_query_is_never_taken(app_client: TestClient) -> None:
    """It has been sent to the server in an address, which a log may keep: the page says so
    and offers the form; no cookie, and the key is not echoed."""
    opened = classes(app_client).open("http://testserver")
    fresh = TestClient(app_client.app)
    r = fresh.get(f"/class/{opened.code}/host?key={opened.host_key}", follow_redirects=False)
    assert r.status_code == 200
    assert "set-cookie" not in r.headers and opened.host_key not in r.text
    assert 'data-testid="host-from-query"' in r.text and 'data-testid="host-form"' in r.text
    page = fresh.get(f"/class/{opened.code}")
    assert 'data-testid="reveal"' not in page.text and 'data-testid="viewer-note"' in page.text


@pytest.mark.parametrize(
    ("data", "headers", "status", "testid"),
    [
        ({"key": "not-the-key"}, SAME, 403, "host-problem"),
        ({"key": ""}, SAME, 403, "host-problem"),
        ({"key": "k" * 257}, SAME, 403, "host-problem"),
        ({}, SAME, 403, "host-problem"),
        ({"key": "RIGHT"}, {"Origin": "http://evil.example"}, 403, "class-refused"),
        ({"key": "RIGHT"}, {"Sec-Fetch-Site": "cross-site"}, 403, "class-refused"),
        ({"key": "RIGHT"}, {}, 403, "class-refused"),  # a form names no origin: refused
        ({"key": "RIGHT", "x": "y" * 1100}, SAME, 403, "class-refused"),  # past FORM_MAX
        ({"key": "RIGHT", "a": "1", "b": "2"}, SAME, 403, "class-refused"),  # more fields
    ],
)
def test_a_wrong_or_cross_site_handover_sets_no_cookie(
    app_client: TestClient,
    data: dict[str, str],
    headers: dict[str, str],
    status: int,
    testid: str,
) -> None:
    opened = classes(app_client).open("http://testserver")
    sent = {k: opened.host_key if v == "RIGHT" else v for k, v in data.items()}
    fresh = TestClient(app_client.app)
    r = fresh.post(f"/class/{opened.code}/host", data=sent, headers=headers, follow_redirects=False)
    assert r.status_code == status
    assert "set-cookie" not in r.headers and opened.host_key not in r.text
    assert f'data-testid="{testid}"' in r.text
    page = fresh.get(f"/class/{opened.code}")
    assert 'data-testid="reveal"' not in page.text and 'data-testid="viewer-note"' in page.text


def test_the_right_key_sent_as_a_handover_form_is_taken_teeth(app_client: TestClient) -> None:
    """The twin of the refusals above: the same request with the right key and the same
    site's headers is taken, so each refusal is down to the one thing that differs."""
    opened = classes(app_client).open("http://testserver")
    r = TestClient(app_client.app).post(
        f"/class/{opened.code}/host",
        data={"key": opened.host_key},
        headers=SAME,
        follow_redirects=False,
    )
    assert r.status_code == 303 and HOST_COOKIE in r.headers["set-cookie"]


# --------------------------------------------------------------------------- unknown codes


@pytest.mark.parametrize(
    "path",
    [
        "/class/ZZZZZZ",
        "/join/ZZZZZZ",
        "/join/hello",
        "/class/no-such/live",
        "/class/ZZZZZZ/host?key=x",
        "/class/ZZZZZZ/host",
    ],
)
def test_an_unknown_or_malformed_code_is_a_404_page(app_client: TestClient, path: str) -> None:
    r = app_client.get(path)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert 'data-testid="class-refused"' in r.text
    assert 'href="/join"' in r.text  # and a way on


def test_an_expired_class_is_a_clear_404_and_its_dashboard_stops_polling(
    app_client: TestClient, clock: Clock
) -> None:
    code = open_class(app_client)
    assert app_client.get(f"/join/{code}").status_code == 200
    clock.now += 25 * 3600
    r = app_client.get(f"/join/{code}")
    assert r.status_code == 404 and f"There is no open class with code {code}" in r.text
    live = app_client.get(f"/class/{code}/live?seen=x")
    assert live.status_code == 200 and 'data-testid="class-ended"' in live.text
    assert "hx-trigger" not in live.text  # the ended part replaces the polling one
    assert app_client.get(f"/class/{code}").status_code == 404


# --------------------------------------------------------------------------- joining


def test_the_join_form_takes_a_code_in_any_case_and_refuses_a_malformed_one(
    app_client: TestClient,
) -> None:
    code = open_class(app_client)
    page = app_client.get("/join")
    assert page.status_code == 200 and '<form method="get" action="/join"' in page.text
    r = app_client.get(f"/join?code=+{code.lower()}+", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/join/{code}"
    bad = app_client.get("/join?code=<script>alert(1)</script>")
    assert bad.status_code == 422
    assert "<script>alert" not in bad.text and 'data-testid="join-problem"' in bad.text
    joining = app_client.get(f"/join/{code.lower()}")
    assert joining.status_code == 200
    first = CLASS_PRESETS[0]
    assert f'data-code="{code}"' in joining.text and f'data-question="{first.id}"' in joining.text
    assert 'href="/station?' in joining.text  # the question opens without JavaScript too


# --------------------------------------------------------------------------- instructor actions


def state(c: TestClient, code: str) -> tuple[str, bool]:
    info = classes(c).find(code)
    assert info is not None
    return info.question, info.revealed


@pytest.mark.parametrize("action", ["reveal", "next"])
def test_reveal_and_next_without_the_cookie_are_403_and_change_nothing(
    app_client: TestClient, action: str
) -> None:
    code = open_class(app_client)
    before = state(app_client, code)
    stranger = TestClient(app_client.app)
    r = stranger.post(f"/class/{code}/{action}", headers=SAME, follow_redirects=False)
    assert r.status_code == 403 and 'data-testid="class-refused"' in r.text
    stranger.cookies.set(HOST_COOKIE, "a-guessed-key", path=f"/class/{code}")
    r = stranger.post(f"/class/{code}/{action}", headers=SAME, follow_redirects=False)
    assert r.status_code == 403
    assert state(app_client, code) == before


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "null"},
        {},  # no browser header and no JSON: not one of our pages' forms
    ],
)
@pytest.mark.parametrize("action", ["reveal", "next", "question"])
def test_a_cross_site_post_is_403_even_with_the_cookie(
    app_client: TestClient, headers: dict[str, str], action: str
) -> None:
    code = open_class(app_client)  # this client holds the key's cookie
    before = state(app_client, code)
    r = app_client.post(
        f"/class/{code}/{action}",
        headers=headers,
        content=b"preset=greedy",
        follow_redirects=False,
    )
    assert r.status_code == 403
    assert state(app_client, code) == before


def test_a_cross_site_open_is_403(app_client: TestClient) -> None:
    r = app_client.post("/class", headers={"Origin": "http://evil.example"}, follow_redirects=False)
    assert r.status_code == 403 and "set-cookie" not in r.headers


def test_the_instructor_reveals_then_moves_on_and_a_refresh_shows_each_state(
    app_client: TestClient,
) -> None:
    code = open_class(app_client)
    first, second = CLASS_PRESETS[0], CLASS_PRESETS[1]
    room = classes(app_client)
    room.submit(code, LEARNERS[0], first.id, "lengthen_k", True, True)
    room.submit(code, LEARNERS[1], first.id, "lengthen_k", False, None)
    room.submit(code, LEARNERS[2], first.id, "skip_repair", None, True)
    page = app_client.get(f"/class/{code}").text  # a refresh, as without JavaScript
    assert "3 learners have answered." in page
    assert re.search(r'data-testid="bar-lengthen_k" data-count="2"', page)
    assert re.search(r'data-testid="bar-kept-yes" data-count="2"', page)
    assert LEARNERS[0] not in page  # only counts, never what a learner sent
    assert 'data-testid="class-reveal"' not in page

    r = app_client.post(f"/class/{code}/reveal", headers=SAME, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/class/{code}"
    assert state(app_client, code) == (first.id, True)
    page = app_client.get(f"/class/{code}").text
    assert 'data-testid="class-reveal"' in page and 'data-testid="reveal"' not in page
    assert 'data-testid="reveal-lengthen_k"' in page and 'data-testid="reveal-skip_repair"' in page
    assert 'data-testid="reveal-raise_match"' not in page  # nobody chose it
    assert "1 of 2 expected it faster (1 said no); it was" in page
    # Revealing twice (a second tab) is not an error.
    again = app_client.post(f"/class/{code}/reveal", headers=SAME, follow_redirects=False)
    assert again.status_code == 303

    r = app_client.post(f"/class/{code}/next", headers=SAME, follow_redirects=False)
    assert r.status_code == 303
    assert state(app_client, code) == (second.id, False)
    page = app_client.get(f"/class/{code}").text
    assert "Nobody has answered yet." in page and second.shown_title in page


def test_the_instructor_can_ask_any_preset_and_an_unknown_one_is_refused(
    app_client: TestClient,
) -> None:
    code = open_class(app_client)
    r = app_client.post(
        f"/class/{code}/question",
        headers=SAME | {"Content-Type": "application/x-www-form-urlencoded"},
        content=b"preset=greedy",
        follow_redirects=False,
    )
    assert r.status_code == 303 and state(app_client, code) == ("greedy", False)
    r = app_client.post(
        f"/class/{code}/question",
        headers=SAME | {"Content-Type": "application/x-www-form-urlencoded"},
        content=b"preset=%3Cb%3Enope",
        follow_redirects=False,
    )
    assert r.status_code == 422 and "<b>nope" not in r.text
    assert state(app_client, code) == ("greedy", False)


def test_the_last_preset_offers_no_next_question(app_client: TestClient) -> None:
    code = open_class(app_client)
    last = CLASS_PRESETS[-1]
    app_client.post(
        f"/class/{code}/question",
        headers=SAME | {"Content-Type": "application/x-www-form-urlencoded"},
        content=f"preset={last.id}".encode(),
    )
    page = app_client.get(f"/class/{code}").text
    assert 'data-testid="next-question"' not in page and 'data-testid="last-question"' in page


# --------------------------------------------------------------------------- the poll


def test_the_live_part_answers_204_while_nothing_changed(app_client: TestClient) -> None:
    code = open_class(app_client)
    first = app_client.get(f"/class/{code}/live")
    assert first.status_code == 200 and first.headers["cache-control"] == "no-store"
    version = re.search(r'data-version="(\w+)"', first.text)
    assert version is not None
    assert f'hx-get="/class/{code}/live?seen={version.group(1)}"' in first.text
    assert 'hx-trigger="every 1s"' in first.text
    same = app_client.get(f"/class/{code}/live?seen={version.group(1)}")
    assert same.status_code == 204 and same.content == b""
    classes(app_client).submit(code, LEARNERS[0], CLASS_PRESETS[0].id, "raise_match", True, True)
    changed = app_client.get(f"/class/{code}/live?seen={version.group(1)}")
    assert changed.status_code == 200 and "1 learner has answered." in changed.text


def test_the_dashboard_on_a_loopback_address_says_phones_cannot_reach_it(
    app_client: TestClient,
) -> None:
    code = open_class(app_client)
    local = TestClient(app_client.app, base_url="http://127.0.0.1:8008")
    local.cookies = app_client.cookies
    page = local.get(f"/class/{code}").text
    assert 'data-testid="loopback-note"' in page
    assert 'data-testid="loopback-note"' not in app_client.get(f"/class/{code}").text


# --------------------------------------------------------------------------- the station's slot


def test_the_station_carries_an_empty_class_slot_with_its_preset_and_prediction(
    app_client: TestClient,
) -> None:
    plain = app_client.get(CLASS_PRESETS[0].url.split("#")[0]).text
    slot = re.search(r'<section id="class-banner"[^>]*>', plain)
    assert slot is not None and " hidden " in slot.group(0)
    assert f'data-preset="{CLASS_PRESETS[0].id}"' in slot.group(0)
    assert 'data-pred=""' in slot.group(0)
    assert '<script type="module" src="/static/js/class.js"></script>' in plain
    predicted = app_client.get(
        "/station?pred=lengthen_k&expect_faster=no&base=0.6,4,0.1,1,1,0&k=8"
    ).text
    slot = re.search(r'<section id="class-banner"[^>]*>', predicted)
    assert slot is not None
    for attribute in ('data-pred="lengthen_k"', 'data-faster="no"', 'data-kept=""'):
        assert attribute in slot.group(0)


# --------------------------------------------------------------------------- a long Host


LONG_HOST = ".".join(["a" * 60] * 40)  # about 2 440 characters: more than a QR code holds


def test_any_host_header_yields_a_class_page_with_its_address_as_text(
    app_client: TestClient,
) -> None:
    code = open_class(app_client)
    far = TestClient(app_client.app, base_url=f"http://{LONG_HOST}", raise_server_exceptions=False)
    far.cookies = app_client.cookies
    answer = far.get(f"/class/{code}")
    assert answer.status_code == 200
    page = answer.text
    assert f"{LONG_HOST}/join/{code}" in page  # the address, as text
    assert 'data-testid="join-qr-text"' in page  # …and said to be too long for a code
    # A short address still gets its code.
    assert "<svg" in app_client.get(f"/class/{code}").text.split('data-testid="join-qr"')[1][:200]


def test_a_server_error_carries_the_security_headers(app_client: TestClient) -> None:
    app = app_client.app

    @app.get("/boom-for-a-test")  # type: ignore[attr-defined, untyped-decorator]
    def boom() -> None:
        raise RuntimeError("a bug")

    answer = TestClient(app, raise_server_exceptions=False).get("/boom-for-a-test")
    assert answer.status_code == 500
    assert "content-security-policy" in answer.headers
    assert answer.headers["x-content-type-options"] == "nosniff"
