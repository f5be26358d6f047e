"""The station embedded in another origin's page: `?embed=1` in an iframe of an
origin STATION08_FRAME_ANCESTORS allows shows the panels; in one it does not, the browser
refuses to draw the station (CSP frame-ancestors), and nothing of it runs.

The station is served by a second uvicorn started here with its own environment (the
session's live server runs on the defaults, 'self' only); the embedding pages come from two
small servers on other ports of this machine (other origins), so nothing leaves it.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.chromium import live_station
from tests.browser.helpers import BrowserMonitor, origin_of

EMBED = "/station?embed=1&pred=skip"


class Embedder:
    """A page on another origin of this machine that frames whatever station it is told to.

    It is a real server on its own port (a page Playwright fulfils itself has no address,
    and chromium's local-network checks then refuse to let it frame 127.0.0.1)."""

    def __init__(self) -> None:
        station = {"url": ""}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                body = (
                    "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
                    "<title>Cockpit</title></head><body><h1>Route cockpit</h1>"
                    f"<iframe title='Station 08' src='{station['url']}{EMBED}' width='1200' "
                    "height='900'></iframe></body></html>"
                ).encode()
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.station = station
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        host, port = self.server.server_address[:2]
        self.origin = f"http://{host!s}:{port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def embedders() -> Iterator[tuple[Embedder, Embedder]]:
    """Two other origins: the cockpit's, which the station allows, and one it does not."""
    allowed, forbidden = Embedder(), Embedder()
    try:
        yield allowed, forbidden
    finally:
        allowed.close()
        forbidden.close()


@pytest.fixture(scope="module")
def embeddable(embedders: tuple[Embedder, Embedder]) -> Iterator[str]:
    """A station that lets itself and the cockpit's origin frame it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STATION08_")}
    env["STATION08_FRAME_ANCESTORS"] = f"'self' {embedders[0].origin}"
    with live_station(env) as url:
        yield url


def embedding_page(page: Page, embedder: Embedder, station: str) -> Page:
    """Open the embedder's page framing the station."""
    embedder.station["url"] = station
    page.goto(f"{embedder.origin}/cockpit")
    return page


@pytest.fixture
def watched(browser: Browser, embeddable: str) -> Iterator[tuple[BrowserContext, BrowserMonitor]]:
    """A context watched as every other (no console or page error, no 5xx), with the station's
    own origin as home and the embedding page's origin the one other allowed."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    monitor = BrowserMonitor(origin=origin_of(embeddable))
    monitor.watch(context)
    yield context, monitor
    context.close()


def problems(monitor: BrowserMonitor, embedder: str) -> list[str]:
    monitor.requests = [u for u in monitor.requests if origin_of(u) != embedder]
    return monitor.problems()


def test_an_allowed_origin_frames_the_panels(
    watched: tuple[BrowserContext, BrowserMonitor],
    embeddable: str,
    embedders: tuple[Embedder, Embedder],
) -> None:
    context, monitor = watched
    allowed = embedders[0]
    page = embedding_page(context.new_page(), allowed, embeddable)
    frame = page.frame_locator("iframe")
    expect(frame.get_by_role("heading", level=1)).to_have_text("Station 08 · Speculative decoding")
    expect(frame.locator("[data-testid=instrument]")).to_be_visible()
    expect(frame.locator("#panel-evidence")).to_be_visible()
    expect(frame.get_by_test_id("embed-exit")).to_have_attribute("target", "_top")
    # Its scripts run inside the frame: a slider moves the evidence over htmx.
    with page.expect_response(lambda r: "/station/evidence" in r.url and r.ok):
        frame.locator("#in-k").fill("6")
    assert not problems(monitor, allowed.origin)


def test_a_forbidden_origin_is_refused_by_frame_ancestors(
    watched: tuple[BrowserContext, BrowserMonitor],
    embeddable: str,
    embedders: tuple[Embedder, Embedder],
) -> None:
    context, monitor = watched
    monitor.allow_console_error(r"frame-ancestors")  # chromium says why it refused
    forbidden = embedders[1]
    page = embedding_page(context.new_page(), forbidden, embeddable)
    expect(page.get_by_role("heading", level=1)).to_have_text("Route cockpit")
    # The station answered (its document was fetched), and the browser refused to draw it.
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)  # a refused frame settles into chromium's error page
    iframe = page.frame_locator("iframe")
    expect(iframe.locator("[data-testid=instrument]")).to_have_count(0)
    expect(iframe.locator("#panel-evidence")).to_have_count(0)
    assert all(not f.url.startswith(embeddable) or f == page.main_frame for f in page.frames[1:])
    assert any(re.search(r"frame-ancestors", text) for text in monitor.console_errors), (
        monitor.console_errors
    )
    assert not problems(monitor, forbidden.origin)


def test_the_default_station_refuses_every_other_origin(
    page: Page, live_server: str, monitor: BrowserMonitor, embedders: tuple[Embedder, Embedder]
) -> None:
    """The session's server runs on the defaults ('self'): the cockpit's origin is refused."""
    monitor.allow_console_error(r"frame-ancestors")
    embedding_page(page, embedders[0], live_server)
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)
    expect(page.frame_locator("iframe").locator("[data-testid=instrument]")).to_have_count(0)
    assert any("frame-ancestors 'self'" in text for text in monitor.console_errors)
    # The embedding page is the one other origin this test itself made up.
    monitor.requests = [u for u in monitor.requests if origin_of(u) != embedders[0].origin]
