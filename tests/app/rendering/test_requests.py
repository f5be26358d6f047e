"""HEAD is answered, and a trailing slash is redirected relatively (found by a hostile pass:
`curl -I /healthz` was 405, and `Host: evil.example` turned `/station/` into a redirect to
`http://evil.example/station`)."""

from __future__ import annotations

import asyncio

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.rendering.requests import RequestShape
from tests.loops import on_own_thread


@pytest.fixture(scope="module")
def client() -> TestClient:
    with TestClient(create_app()) as c:
        yield c


@pytest.mark.parametrize("path", ["/healthz", "/station", "/api/trace", "/static/css/station.css"])
def test_head_answers_like_get_without_a_body(client: TestClient, path: str) -> None:
    head, get = client.head(path), client.get(path)
    assert head.status_code == get.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]
    assert "content-security-policy" in head.headers


def test_a_trailing_slash_redirects_to_a_relative_address_whatever_the_host(
    client: TestClient,
) -> None:
    r = client.get("/station/?k=5", headers={"Host": "evil.example"}, follow_redirects=False)
    assert r.status_code == 308
    assert r.headers["location"] == "/station?k=5"  # relative: the Host header is not read
    assert "content-security-policy" in r.headers
    assert client.get("/station/?k=5").url.path == "/station"  # and it lands


def _location(path: str) -> str:
    """The middleware's answer for a raw request path (a client would normalise '//')."""
    sent: list[dict[str, object]] = []

    async def app(scope: object, receive: object, send: object) -> None:
        raise AssertionError("a trailing slash never reaches the app")

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "query_string": b""}
    on_own_thread(asyncio.run, RequestShape(app)(scope, None, send))  # type: ignore[arg-type]
    headers = dict(sent[0]["headers"])  # type: ignore[arg-type]
    return headers[b"location"].decode()


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("//evil.example/", "/evil.example"),  # never protocol-relative
        ("///station/", "/station"),
        ("/station/%0d%0aSet-Cookie:x/", "/station/%0d%0aSet-Cookie:x"),
        ("/station/\r\nX: y/", "/station/%0D%0AX:%20y"),
    ],
)
def test_the_redirect_stays_on_this_origin_and_carries_no_header(path: str, location: str) -> None:
    assert _location(path) == location


def test_teeth_the_app_without_it_would_send_the_host_along() -> None:
    from fastapi import FastAPI

    bare = FastAPI()

    @bare.get("/station")
    def station() -> dict[str, str]:
        return {}

    with TestClient(bare) as c:
        r = c.get("/station/", headers={"Host": "evil.example"}, follow_redirects=False)
    assert r.headers["location"].startswith("http://evil.example/")
