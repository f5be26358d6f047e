"""A hostile pass over every route: whatever a query carries, the answer is a 422
that names the field and its range (in place on the pages and fragments: they still render,
with the message), never a 500, a hang, a raw control character in the HTML, an injected
header or a redirect off this origin; `/static/` serves nothing outside its directory; and
every answer carries the security headers.

The route list comes from the app itself (`create_app().routes`): a route added without a row
in `KINDS` fails `test_every_route_is_classified`, so it cannot go untested.

What a route does with a parameter it does not read is decided by its kind: the routes that
read the station's state or the settings refuse it (a 422 naming it; the pages still render),
every other route ignores its query (docs/http.md).
"""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import sys
import time
import unicodedata
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.routing import _IncludedRouter
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute, Mount, Route

from app.config import AppSettings
from app.edge.protocol import MAX_HEAD
from app.edge.security import security_headers
from app.main import create_app
from tests.app.station.routes.test_api import SETTINGS_ROUTES
from tests.loops import on_own_thread
from witness import Settings
from witness.core.settings import expected_text, field_bounds
from witness.cost import measured
from witness.cost.measured import MeasuredRoofline, measure_roofline

# --- the routes, by what they read ---------------------------------------------------------

PAGES = ("/", "/station", "/station/worksheet", "/station/predict")  # whole pages
FRAGMENTS = (
    "/station/evidence",
    "/station/block",
    "/station/beside",
    "/station/sweep",
    "/station/slice",
    "/station/step",
    "/station/race",
)
STATE_HTML = PAGES + FRAGMENTS  # read the station state (app/station/state/query.py), answer HTML
STATE_JSON = ("/api/checkpoint",)  # the station state, answered as JSON
SETTINGS_JSON = SETTINGS_ROUTES  # the JSON routes that take the settings as their query
OWN_QUERY = ("/study",)  # its own four answers; anything else is ignored
NO_QUERY = (
    "/openapi.json",
    "/station.json",
    "/route-memory.schema.json",
    "/station-manifest.schema.json",
    "/route-memory.md",
    "/architecture.md",
    "/serving",
    "/route",
    "/roofline",
    "/roofline/panel",
    "/favicon.ico",
    "/healthz",
)
# A live class (app/classes/api.py): JSON with a path parameter, mostly POSTs, one DELETE; its own
# hostile cases (keys, cross-site, sizes, scripts in every field) are tests/app/classes.
CLASS_JSON = (
    "/api/classes",
    "/api/classes/{code}",
    "/api/classes/{code}/predictions",
    "/api/classes/{code}/tally",
    "/api/classes/{code}/question",
    "/api/classes/{code}/reveal",
    "/api/classes/{code}/lock",
    "/api/classes/{code}/unlock",
    "/api/classes/{code}/learners/{learner}",
)
# A live class's pages (app/classes/pages.py): HTML with a path parameter; their own
# cases (the host key, cross-site forms, unknown codes) are tests/app/classes/test_pages.py.
# POST only; the last two are a learner's without JavaScript (app/classes/learner.py, its
# cases in tests/app/classes/test_learner.py).
CLASS_FORMS = (
    "/class/{code}/reveal",
    "/class/{code}/next",
    "/class/{code}/question",
    "/class/{code}/lock",
    "/class/{code}/unlock",
    "/class/{code}/tally/hide",
    "/class/{code}/tally/show",
    "/class/{code}/remove",
    "/class/{code}/join",
    "/class/predict",
)
CLASS_HTML = (
    "/class",
    "/class/{code}",
    "/class/{code}/host",
    "/class/{code}/live",
    "/join",
    "/join/{code}",
    *CLASS_FORMS,
)
KINDS = {
    **dict.fromkeys(STATE_HTML, "state-html"),
    **dict.fromkeys(CLASS_JSON, "class-json"),
    **dict.fromkeys(CLASS_HTML, "class-html"),
    **dict.fromkeys(STATE_JSON, "state-json"),
    **dict.fromkeys(SETTINGS_JSON, "settings-json"),
    **dict.fromkeys(OWN_QUERY, "own-query"),
    **dict.fromkeys(NO_QUERY, "no-query"),
}
READS_STATE = STATE_HTML + STATE_JSON + SETTINGS_JSON
JSON_ROUTES = STATE_JSON + SETTINGS_JSON


def _walk(routes: list[BaseRoute]) -> Iterator[BaseRoute]:
    for r in routes:
        if isinstance(r, _IncludedRouter):
            yield from _walk(r.original_router.routes)
        else:
            yield r


def app_routes() -> dict[str, set[str]]:
    """Every path the app answers, with its methods (`/static` as a mount)."""
    out: dict[str, set[str]] = {}
    for r in _walk(create_app(settings=AppSettings()).routes):
        if isinstance(r, Route):  # a path may have a GET and a POST route (/class)
            out.setdefault(r.path, set()).update(r.methods or ())
        elif isinstance(r, Mount):
            out[r.path] = {"MOUNT"}
    return out


ROUTES = app_routes()


def test_every_route_is_classified() -> None:
    assert set(ROUTES) - {"/static"} == set(KINDS), "classify the new route in KINDS"
    posts = ("/static", *CLASS_JSON, *CLASS_FORMS)
    assert all("GET" in m for p, m in ROUTES.items() if p not in posts)


# --- fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small() -> MeasuredRoofline:
    return measure_roofline(rows=256, cols=128, repeats=2)


@pytest.fixture(scope="module")
def client(small: MeasuredRoofline) -> Iterator[TestClient]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(measured, "measured_here", lambda: small)  # the real one times 128 MiB
        with TestClient(create_app(settings=AppSettings())) as c:
            yield c


def text_of(body: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", body))


def assert_named(route: str, r: Any, field: str, expected: str = "") -> None:
    """A 422 that names ``field`` (and ``expected``, its range) where the learner reads it."""
    assert r.status_code == 422, f"{route}: {r.status_code}"
    if route in JSON_ROUTES:
        detail = r.json()["detail"]
        assert any(e["loc"][:2] == ["query", field] for e in detail), detail
        assert not expected or any(expected in e["msg"] for e in detail), detail
        return
    text = text_of(r.text)
    assert re.search(rf"(?<![\w-]){re.escape(field)} (must|is not)", text), text[:2000]
    assert not expected or expected in text, text[:2000]
    # In place: the page (or fragment) still renders, with the message as an alert.
    assert 'role="alert"' in r.text
    if route in PAGES:
        assert 'data-testid="problems"' in r.text and "</html>" in r.text


# --- values the model refuses, field by field -----------------------------------------------

SUBNORMAL = "1e-320"
HUGE = str(10**400)


def _bad_values(name: str) -> list[str]:
    b = field_bounds(name)
    if b["kind"] == "int":
        return [
            str(b["max"] + 1),
            str(b["min"] - 1),
            HUGE,
            "NaN",
            "inf",
            "1e309",
            "٣",
            "1_0",
            "３",
            "%ZZ",
            "\x00",
            "1\r\n",
        ]
    if b["kind"] == "float":
        return [
            str(b["max"] * 2 + 1),
            "-1",
            "NaN",
            "inf",
            "-inf",
            "1e309",
            HUGE,
            # A subnormal is refused where the minimum is above 0 (tpot_ms); where 0 itself
            # is allowed, it is the tiny number in range that it is.
            *([SUBNORMAL] if b["min"] > 0 else []),
            "٠.5",
            "0_5",
            "%ZZ",
            "\x00",
            "0.5\r\n",
        ]
    if b["kind"] == "bool":
        return ["maybe", "\x00", "%FF"]
    if b["kind"] == "choice":
        return ["nope", "\x00", "%FF"]
    return ["x" * 201, "a\x00b", "a\r\nb", "a\x1bb", "a\x7fb", "a\x85b", "%FF", "%E2%82", "%ZZ"]


SETTING_CASES = [(n, v) for n in Settings.model_fields for v in _bad_values(n)]
# A malformed escape in text decodes to itself ("%ZZ"), which is text a prompt may hold; only
# the raw query shows it was malformed: the pages read it (parse_query), and the JSON routes
# check it before FastAPI's decoded query is read (app/station/routes/api.py well_encoded, route.py).
# The view's own fields (app/station/state/query.py, options.py): each refused on its own, with or
# without a prediction.
VIEW_CASES = [
    ("block", "٣"),
    ("block", "1_0"),
    ("block", "256"),
    ("block", "-1"),
    ("block", HUGE),
    ("block", "\x00"),
    ("sub", "٣"),
    ("sub", "1_0"),
    ("sub", "41"),
    ("sub", "１"),
    ("expect_faster", "maybe"),
    ("expect_kept", "maybe"),
    ("base", "garbage"),
    ("base", "0.6,4,0.1,1,1"),
    ("pred", "nope"),
    ("pred", "\x00"),
    ("from", "evil"),
    ("memory", "nope"),
    ("preset", "nope"),
    ("view", "nope"),
    ("embed", "2"),
    ("slice", "2"),
    ("race", "2"),
    ("block", "%ZZ"),
]


def _query(name: str, value: str) -> str:
    """``name=value`` with the value percent-encoded, except a deliberately bad escape."""
    raw = value if value.startswith("%") else quote(value, safe="")
    return f"{name}={raw}"


def _pred(route: str) -> str:
    """A recorded prediction (so every fragment draws its evidence), where the route reads one."""
    return "" if route in SETTINGS_JSON else "pred=skip&"


def _expected(name: str) -> str:
    return expected_text(name) if name in Settings.model_fields else ""


# Every bad value on one route of each module (pages, steps, race, the JSON API, the
# checkpoint); every field with two of its bad values on the rest (they share the parser).
FULL = ("/station", "/station/sweep", "/station/step", "/station/race", "/api/checkpoint",
        "/api/trace")  # fmt: skip
SHORT_CASES = [(n, v) for n in Settings.model_fields for v in _bad_values(n)[:2]]
ROUTE_CASES = [
    (r, n, v) for r in READS_STATE for n, v in (SETTING_CASES if r in FULL else SHORT_CASES)
]


@pytest.mark.parametrize(("route", "name", "value"), ROUTE_CASES, ids=repr)
def test_a_bad_setting_is_a_422_naming_the_field_and_its_range(
    client: TestClient, route: str, name: str, value: str
) -> None:
    r = client.get(f"{route}?{_pred(route)}{_query(name, value)}", follow_redirects=False)
    assert_named(route, r, name, _expected(name))


@pytest.mark.parametrize("route", STATE_HTML + STATE_JSON)
@pytest.mark.parametrize(("name", "value"), VIEW_CASES, ids=repr)
@pytest.mark.parametrize("pred", ["", "pred=skip&"])
def test_a_bad_view_field_is_a_422_naming_it(
    client: TestClient, route: str, name: str, value: str, pred: str
) -> None:
    if name == "pred" and pred:
        pred = ""
    r = client.get(f"{route}?{pred}{_query(name, value)}", follow_redirects=False)
    assert_named(route, r, name)


@pytest.mark.parametrize("route", STATE_HTML + STATE_JSON)
def test_the_html_never_carries_a_control_character(client: TestClient, route: str) -> None:
    query = "&".join(
        [_query("prompt", "a\x00b\x1b[31m\r\n"), "zz%00%0d%0a=1", "pred=skip", "block=%00"]
    )
    r = client.get(f"{route}?{query}", follow_redirects=False)
    assert r.status_code == 422
    controls = {c for c in r.text if unicodedata.category(c) == "Cc"} - {"\n", "\t"}
    assert not controls, controls
    assert "\r" not in r.text


# --- parameters the model does not know, repeated ones, sizes -------------------------------


@pytest.mark.parametrize("route", READS_STATE)
def test_a_parameter_a_state_route_does_not_read_is_refused_by_name(
    client: TestClient, route: str
) -> None:
    r = client.get(f"{route}?{_pred(route)}colour=blue", follow_redirects=False)
    assert r.status_code == 422
    if route in JSON_ROUTES:
        assert ["query", "colour"] in [e["loc"][:2] for e in r.json()["detail"]]
    else:
        assert "colour is not a setting of this station" in text_of(r.text)


@pytest.mark.parametrize("route", OWN_QUERY + NO_QUERY)
def test_a_route_without_settings_ignores_its_query(client: TestClient, route: str) -> None:
    plain = client.get(route)
    odd = client.get(f"{route}?colour=blue&k=99&prompt=%00")
    assert plain.status_code == odd.status_code == 200
    if route != "/openapi.json":  # the same document either way
        assert odd.content == plain.content


@pytest.mark.parametrize("route", READS_STATE)
def test_the_last_of_a_repeated_parameter_wins_everywhere(client: TestClient, route: str) -> None:
    bad_last = client.get(f"{route}?{_pred(route)}k=3&k=99", follow_redirects=False)
    assert_named(route, bad_last, "k", expected_text("k"))
    good_last = client.get(f"{route}?{_pred(route)}k=99&k=3", follow_redirects=False)
    assert good_last.status_code in (200, 303), good_last.status_code


# FastAPI's own 422 (the JSON API's settings) echoes each refused input whole; behind the
# server that is at most the 16 KiB a request head may take (the server tests below), and
# only app/main.py's exception handler could cut it shorter.
@pytest.mark.parametrize("route", READS_STATE)
@pytest.mark.parametrize("size", [100_000, 1_000_000])
def test_a_huge_query_is_a_422_that_does_not_echo_it(app: Any, route: str, size: int) -> None:
    """In the app (a client refuses to send such a URL, and the server answers 414 before the
    app sees it: the server tests below); the answer names the field and never echoes it."""
    for query, field, run in [
        (f"prompt={'a' * size}", "prompt", b"a" * 100),
        (f"k={'9' * size}", "k", b"9" * 100),
        (f"{'z' * size}=1", "", b"z" * 100),
    ]:
        status, _, body = _raw(app, route, f"{_pred(route)}{query}".encode())
        assert status == 422, (route, field, status)
        assert run not in body, (route, field, len(body))
        if field:
            assert field.encode() in body
            assert expected_text(field) in unescape(body.decode())


# --- headers and redirects carry nothing in ---------------------------------------------------

INJECTIONS = ["%0d%0aX-Evil:%201", "%0aX-Evil:%201", "x%0d%0a%0d%0a<script>", "%E5%98%8A%E5%98%8D"]


@pytest.mark.parametrize("route", sorted(KINDS))
@pytest.mark.parametrize("injection", INJECTIONS)
def test_nothing_carried_in_reaches_a_header(
    client: TestClient, route: str, injection: str
) -> None:
    names = [*Settings.model_fields, "pred", "base", "block", "sub", "preset", "from", "memory"]
    query = "&".join(f"{n}={injection}" for n in names)
    r = client.get(f"{route}?{query}&{injection}=1", follow_redirects=False)
    assert r.status_code < 500
    assert "x-evil" not in r.headers
    for key, value in r.headers.multi_items():
        assert not re.search(r"[\x00-\x1f\x7f]", key + value), (key, value)
        assert "<script>" not in value


def _location(client: TestClient, url: str) -> str | None:
    r = client.get(url, follow_redirects=False)
    assert r.status_code < 500, (url, r.status_code)
    return r.headers.get("location")


REDIRECT_TRIES = [
    "/station/predict?pred=raise_match&next=https://evil.example",
    "/station/predict?pred=raise_match&prompt=//evil.example",
    "/station/predict?pred=raise_match&prompt=/%5Cevil.example",
    "/station/predict?pred=skip&from=%2F%2Fevil.example",
    "/station/predict?pred=skip&base=//evil.example",
    "/station/predict?pred=skip&prompt=http://evil.example/",
    "/station/?next=//evil.example",
    "/station/predict/?pred=skip",
]


@pytest.mark.parametrize("url", REDIRECT_TRIES)
def test_a_redirect_never_leaves_this_origin(client: TestClient, url: str) -> None:
    location = _location(client, url)
    if location is None:
        return
    assert location.startswith("/station"), location
    assert not location.startswith(("//", "/\\")), location
    assert "evil.example" not in location.split("?", 1)[0], location


def _raw(
    app: Any, path: str, query: bytes = b"", method: str = "GET"
) -> tuple[int, dict[bytes, bytes], bytes]:
    """One request as a server would hand it over, path exactly as given (no client
    normalises its dots or slashes)."""
    sent: list[dict[str, Any]] = []
    request_sent = False

    async def receive() -> dict[str, Any]:
        nonlocal request_sent
        if not request_sent:
            request_sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode("utf-8", "surrogateescape"),
        "query_string": query,
        "root_path": "",
        "headers": [(b"host", b"station")],
        "client": ("127.0.0.1", 1),
        "server": ("station", 80),
    }
    on_own_thread(asyncio.run, app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), body


@pytest.fixture(scope="module")
def app() -> Any:
    return create_app(settings=AppSettings())


@pytest.mark.parametrize(
    "path",
    [
        "//evil.example/",
        "/\\evil.example/",
        "/%2F%2Fevil.example/",
        "/%5Cevil.example/",
        "/station/%0d%0aSet-Cookie:%20x/",
        "/https://evil.example/",
    ],
)
def test_a_slash_redirect_stays_relative_for_any_raw_path(app: Any, path: str) -> None:
    from urllib.parse import unquote

    status, headers, _ = _raw(app, unquote(path), b"next=//evil.example")
    assert status == 308
    location = headers[b"location"].decode("latin-1")
    assert location.startswith("/") and not location.startswith(("//", "/\\")), location
    assert not re.search(r"[\x00-\x20\x7f]", location), location


# --- /static/ serves its directory only -------------------------------------------------------

TRAVERSALS = [
    "/static/../app/main.py",
    "/static/..%2f..%2fapp/main.py",
    "/static/%2e%2e/%2e%2e/app/main.py",
    "/static/%2e%2e%2f%2e%2e%2fapp%2fmain.py",
    "/static/%252e%252e/%252e%252e/app/main.py",
    "/static/..%252f..%252fapp/main.py",
    "/static/..\\..\\app\\main.py",
    "/static/..%5c..%5capp%5cmain.py",
    "/static//etc/passwd",
    "/static/%2fetc%2fpasswd",
    "/static/css/../../app/main.py",
    "/static/css/station.css%00.py",
    "/static/%00",
    "/static/..%c0%af..%c0%afapp/main.py",
    "/static/.%2e/.%2e/app/main.py",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_static_refuses_traversal_in_every_encoding(app: Any, path: str) -> None:
    from urllib.parse import unquote

    for given in {path, unquote(path)}:  # as sent, and as a server decodes it into the scope
        status, headers, body = _raw(app, given)
        assert status in (400, 404), (given, status)
        assert b"create_app" not in body and b"root:" not in body
        assert b"content-security-policy" in headers


def test_static_still_serves_its_files(app: Any) -> None:
    status, _, body = _raw(app, "/static/css/station.css")
    assert status == 200 and body


# --- security headers on every kind of answer ------------------------------------------------

EXPECTED_HEADERS = dict(security_headers("'self'"))


@pytest.mark.parametrize(
    ("method", "url", "status"),
    [
        ("GET", "/", 200),
        ("GET", "/station?pred=skip", 200),
        ("GET", "/station/evidence?pred=skip", 200),
        ("GET", "/no-such-page", 404),
        ("POST", "/station", 405),
        ("DELETE", "/api/trace", 405),
        ("GET", "/station?k=0", 422),
        ("GET", "/station/sweep?k=0", 422),
        ("GET", "/api/trace?k=0", 422),
        ("GET", "/api/checkpoint?k=0", 422),
        ("GET", "/station/", 308),
        ("GET", "/station/predict?pred=skip", 303),
        ("GET", "/static/css/station.css", 200),
        ("GET", "/static/js/station.js", 200),
        ("GET", "/static/no-such.css", 404),
        ("GET", "/openapi.json", 200),
        ("GET", "/healthz", 200),
        ("HEAD", "/healthz", 200),
        ("GET", "/favicon.ico", 200),
        ("GET", "/roofline/panel", 200),
        ("GET", "/api/classes/ABCDEF", 404),
        ("POST", "/api/classes", 403),
    ],
)
def test_every_answer_carries_the_security_headers(
    client: TestClient, method: str, url: str, status: int
) -> None:
    r = client.request(method, url, follow_redirects=False)
    assert r.status_code == status
    for name, value in EXPECTED_HEADERS.items():
        assert r.headers.get(name.decode()) == value.decode(), name


# --- the server: a real uvicorn on a free port, spoken to over raw sockets --------------------

ROOT = Path(__file__).resolve().parents[4]
# What bench/http.py and tests/browser/conftest.py should pass to `python -m uvicorn`, and
# what `python -m app` sets (app/__main__.py).
SERVER_FLAGS = [
    "--http", "app.edge.protocol:StationProtocol",
    "--h11-max-incomplete-event-size", str(MAX_HEAD),
]  # fmt: skip
SHORT_TIMEOUT = 1.0
# The same server in one process, with the head's deadline shortened for the test.
SERVE_SHORT = f"""
import sys, uvicorn
from app.edge import protocol
protocol.StationProtocol.head_timeout = {SHORT_TIMEOUT}
uvicorn.run("app.main:create_app", factory=True, host="127.0.0.1", port=int(sys.argv[1]),
            http=protocol.StationProtocol, h11_max_incomplete_event_size=protocol.MAX_HEAD,
            log_level="error")
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _started(command: list[str], port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    _, err = proc.communicate(timeout=10)
    raise AssertionError(f"the server did not start: {err.decode(errors='replace')}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.communicate(timeout=10)


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    """`python -m uvicorn --factory app.main:create_app` with the flags, as bench/ starts it."""
    port = _free_port()
    command = [sys.executable, "-m", "uvicorn", "--factory", "app.main:create_app",
               "--host", "127.0.0.1", "--port", str(port), "--log-level", "error", *SERVER_FLAGS]  # fmt: skip
    proc = _started(command, port)
    yield port
    _stop(proc)


@pytest.fixture(scope="module")
def short_server() -> Iterator[int]:
    port = _free_port()
    proc = _started([sys.executable, "-c", SERVE_SHORT, str(port)], port)
    yield port
    _stop(proc)


def _exchange(port: int, request: bytes, timeout: float = 10) -> bytes:
    """Send the whole request, then read the answer until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def _headers(answer: bytes) -> dict[bytes, bytes]:
    head = answer.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]
    return dict((k.lower(), v) for k, _, v in (line.partition(b": ") for line in head))


@pytest.mark.parametrize("size", [9_000, 20_000, 100_000, 1_000_000])
def test_an_address_past_the_limit_is_a_414_not_a_reset(server: int, size: int) -> None:
    answer = _exchange(
        server, b"GET /station?prompt=" + b"a" * size + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    assert answer.startswith(b"HTTP/1.1 414 "), answer[:100]
    assert _headers(answer)[b"x-content-type-options"] == b"nosniff"
    assert _headers(answer)[b"connection"] == b"close"


def test_headers_past_the_limit_are_a_431(server: int) -> None:
    big = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"p" * 1000) for i in range(100))
    answer = _exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + big + b"\r\n")
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:100]
    assert b"content-security-policy" in _headers(answer)


def test_the_longest_station_address_is_served(server: int) -> None:
    query = "&".join(f"{n}={'9' * 80}" for n in ("seed", "tokens", "prompt"))
    answer = _exchange(
        server,
        f"GET /station?{query}&{'x' * 6000}=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode(),
    )
    assert answer.startswith(b"HTTP/1.1 422 "), answer[:100]  # in the app: named in place


def test_a_head_that_never_completes_is_closed(short_server: int) -> None:
    """150 connections that never finish their headers, and 10 that send nothing: all closed
    once the head's deadline passes, and the server still answers."""
    partial = [socket.create_connection(("127.0.0.1", short_server)) for _ in range(150)]
    silent = [socket.create_connection(("127.0.0.1", short_server)) for _ in range(10)]
    try:
        for s in partial:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        time.sleep(SHORT_TIMEOUT + 1.5)
        for s in partial:
            s.settimeout(5)
            answer = b"".join(iter(lambda s=s: s.recv(4096), b""))  # type: ignore[misc]
            assert answer.startswith(b"HTTP/1.1 408 "), answer[:80]
        for s in silent:
            s.settimeout(5)
            assert s.recv(4096) == b""  # closed without a word: nothing was asked
    finally:
        for s in partial + silent:
            s.close()
    ok = _exchange(short_server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 200 ")


def test_a_kept_alive_connection_gets_the_same_deadline(short_server: int) -> None:
    with socket.create_connection(("127.0.0.1", short_server), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while not first.endswith(b"}"):  # the whole first answer: /healthz's JSON object
            chunk = s.recv(65536)
            assert chunk, first  # closed before its answer was whole
            first += chunk
        assert first.startswith(b"HTTP/1.1 200 ")
        s.sendall(b"GET /healthz HTTP/1.1\r\n")  # the next request, then nothing
        s.settimeout(20)  # uvicorn alone never closes it: its keep-alive timer stops here
        answer = b"".join(iter(lambda: s.recv(4096), b""))
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:80]


def test_a_slow_but_complete_request_is_served(short_server: int) -> None:
    with socket.create_connection(("127.0.0.1", short_server), timeout=10) as s:
        for part in (b"GET /healthz HTTP/1.1\r\n", b"Host: x\r\n", b"Connection: close\r\n\r\n"):
            s.sendall(part)
            time.sleep(SHORT_TIMEOUT / 4)
        assert s.recv(65536).startswith(b"HTTP/1.1 200 ")
