"""Security headers on every kind of response, and a CSP that allows no inline script."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.config import AppSettings
from app.main import create_app
from tests.app.view_models import view_of


def test_the_policy_allows_scripts_from_this_origin_only(client: TestClient) -> None:
    # What the policy says; that every kind of answer carries these very headers is
    # test_every_answer_carries_the_security_headers (tests/app/station/routes/test_hostile.py).
    r = client.get("/")
    csp = r.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["script-src"] == "'self'"
    assert "unsafe-inline" not in csp
    assert "unsafe-eval" not in csp
    assert directives["frame-ancestors"] == "'self'"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"


def test_frame_ancestors_come_from_settings() -> None:
    app = create_app(settings=AppSettings(frame_ancestors="'self' https://cockpit.example"))
    with TestClient(app) as c:
        csp = c.get("/").headers["content-security-policy"]
    assert "frame-ancestors 'self' https://cockpit.example" in csp


def test_the_page_has_no_inline_script_or_style_and_no_other_origin(client: TestClient) -> None:
    html = client.get("/station?pred=skip").text
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert 'src="/static/' in tag, tag
    assert not re.search(r"<script\b[^>]*>\s*[^<\s]", html), "inline script content"
    assert " style=" not in html
    assert "<style" not in html
    handlers = [t for t in re.findall(r"<[a-z][^>]*>", html) if re.search(r"\son[a-z]+=", t)]
    assert not handlers, f"inline event handlers: {handlers[:3]}"
    for url in re.findall(r'(?:src|href|action)="([^"]+)"', html):
        assert url.startswith(("/", "#")), f"{url} leaves the station's origin"


def test_pages_are_compressed_and_keep_their_headers(client: TestClient) -> None:
    page = client.get("/station?pred=skip", headers={"Accept-Encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip"
    assert page.num_bytes_downloaded * 3 < len(page.content)  # at least 3x smaller on the wire
    assert page.headers["content-security-policy"].startswith("default-src 'self'")
    assert view_of(page).settings.k == 4
    assert "content-encoding" not in client.get("/healthz").headers  # too small to bother


@pytest.mark.parametrize(
    "path",
    ["/station?pred=skip", "/station/evidence?pred=skip&k=6", "/station/step?pred=skip&sub=2"],
)
def test_a_rendered_page_is_the_same_text_gzipped_or_not(client: TestClient, path: str) -> None:
    # Rendered pages are compressed once when rendered, not per response: the gzipped
    # answer must be the plain one, and every cache on the way must know they differ.
    plain = client.get(path, headers={"Accept-Encoding": "identity"})
    packed = client.get(path, headers={"Accept-Encoding": "gzip, deflate"})
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.content == plain.content  # the client decoded it
    assert packed.num_bytes_downloaded * 3 < len(packed.content)
    for answer in (plain, packed):
        assert "Accept-Encoding" in answer.headers["vary"]
        assert int(answer.headers["content-length"]) == answer.num_bytes_downloaded
    if "/evidence" in path:  # the fragment's own Vary is kept beside it
        assert "HX-Request" in packed.headers["vary"]
