"""Rendering a station state, once.

A page or fragment is a pure function of (template, state, app settings), so the rendered
text is kept in an LRU cache: a class of a hundred learners on the same preset, or one
learner dragging a slider back and forth, costs one render per distinct state. The cache
holds the text and the page URL only, not the view models that made it: those are a few
hundred small objects per state, and every object a cache keeps alive is one more for the
garbage collector to walk (see app/collector.py). Starlette's test client still learns
which template and context made a response, exactly as from a TemplateResponse: the
context is rebuilt for it on demand (it is deterministic), and only for it.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi.templating import Jinja2Templates
from starlette.background import BackgroundTask
from starlette.datastructures import Headers
from starlette.responses import HTMLResponse
from starlette.types import Receive, Scope, Send

from app.config import AppSettings
from app.rendering.compression import GZIP_LEVEL
from app.rendering.memo import Memo
from app.state.query import StationState
from app.views.station import StationView, station_view

LIVE_FRAGMENTS = frozenset({"fragments_evidence.html"})
# States per cache; a whole page is ~75 KB of HTML (~10 KB gzipped), a fragment ~50 KB.
RENDER_CACHE = 512


@dataclass(frozen=True, slots=True)
class Encoded:
    """A rendered text as it is kept: UTF-8, gzipped once, when it is rendered.

    Every browser accepts gzip, so a cached page is sent as it is kept, with no compression
    per response (the gzip middleware passes an encoded body through untouched), and the
    caches hold ~7x less than the text itself (a str of these pages, with their ✓, · and —,
    takes two bytes a character). The rare client that does not accept gzip gets it
    decompressed, ~0.1 ms.
    """

    gzipped: bytes

    @property
    def plain(self) -> bytes:
        return gzip.decompress(self.gzipped)


def encode(text: str) -> Encoded:
    return Encoded(gzip.compress(text.encode(), compresslevel=GZIP_LEVEL, mtime=0))


class RenderedPage(HTMLResponse):
    """An HTML response that also reports its template and context to test clients."""

    def __init__(
        self,
        body: Encoded,
        template: str,
        context: Callable[[], dict[str, Any]],
        status_code: int = 200,
        headers: dict[str, str] | None = None,
        background: BackgroundTask | None = None,
    ) -> None:
        # The body is chosen in __call__, when the client's Accept-Encoding is known.
        super().__init__(b"", status_code, headers, background=background)
        self.encoded, self.template_name, self.context = body, template, context

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if "http.response.debug" in scope.get("extensions", {}):
            info = {"template": _Named(self.template_name), "context": self.context()}
            await send({"type": "http.response.debug", "info": info})
        self.headers.add_vary_header("Accept-Encoding")
        if _accepts_gzip(scope):
            self.body = self.encoded.gzipped
            self.headers["Content-Encoding"] = "gzip"
        else:
            self.body = self.encoded.plain
        self.headers["Content-Length"] = str(len(self.body))
        await super().__call__(scope, receive, send)


def _accepts_gzip(scope: Scope) -> bool:
    # The same test as Starlette's GZipMiddleware, so every response is encoded alike.
    return "gzip" in Headers(scope=scope).get("accept-encoding", "")


class _Named:
    """What the test client exposes as `response.template`: something with a `.name`."""

    def __init__(self, name: str) -> None:
        self.name = name


@dataclass(frozen=True, slots=True)
class Rendered:
    body: Encoded
    page_url: str  # the whole page's URL for this state (HX-Replace-Url)


@dataclass(frozen=True, slots=True)
class Renderer:
    """Renders (template, state, include_seed) once; `view` rebuilds what made a render."""

    render: Callable[[str, StationState, bool], Rendered]
    view: Callable[[str, StationState], StationView]


def make_renderer(
    templates: Jinja2Templates, settings: AppSettings, gate: threading.Lock
) -> Renderer:
    def view(template: str, state: StationState) -> StationView:
        # Fragments answer a slider move: the sweep (sixteen served requests) follows in a
        # request of its own, so only whole pages and the sweep itself draw it.
        return station_view(state, settings, with_sweep=template not in LIVE_FRAGMENTS)

    def render(template: str, state: StationState, include_seed: bool) -> Rendered:
        made = view(template, state)
        body = templates.get_template(template).render(view=made, include_seed=include_seed)
        return Rendered(encode(body), made.links.page)

    return Renderer(Memo(render, RENDER_CACHE, gate), view)
