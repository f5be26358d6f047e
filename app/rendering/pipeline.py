"""One render pipeline for every HTML answer: pages, fragments, the study card, the stand-ins.

A `Page` is a template and a pure function that builds its context from a hashable key (a
`StationState`, the study card's answers, or nothing) and a variant the request decides (a
fragment's swap flag). So the rendered text is a pure function of (page, key, variant) and is
kept in an LRU: a class of a hundred learners on one preset, or one learner dragging a slider
back and forth, costs one render per distinct state. The cache keeps the text (UTF-8,
gzipped once) and the answer's status and headers, never the view models that made it: those
are a few hundred small objects per state, and every object a cache keeps alive is one more
for the garbage collector to walk (app/edge/collector.py). A cached answer is sent from
the event loop; a new state is rendered in one of the app's lanes (app/rendering/lanes.py),
after the handler has returned, so a request waiting for its render holds no thread, and one
whose client has left by its turn is dropped unrendered.

Tests read view models by calling the view functions themselves (they are pure), and the HTTP
layer through responses; nothing here exists for a test client.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
from fastapi.templating import Jinja2Templates
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.config import AppSettings
from app.rendering.lanes import Busy, Gone, Lane, Lanes
from app.rendering.memo import Memo
from app.rendering.parts import HEADER as PARTS_HEADER
from app.rendering.parts import Span, cut, held, unmark
from app.station.services import Witness

# Level 3, not Starlette's 9: on a 57 KB evidence fragment level 3 takes 0.18 ms for 11.5 KB,
# level 5 0.55 ms for 10.4 KB and level 9 1.2 ms for 10.3 KB. A new state pays it once, on the
# server's CPU, which a class shares; a tenth more bytes is ~0.1 ms on a classroom's Wi-Fi.
GZIP_LEVEL = 3
# Renders per app; a whole page is ~75 KB of HTML (~10 KB gzipped), a fragment ~50 KB.
RENDER_CACHE = 1024


@dataclass(frozen=True, slots=True)
class Env:
    """What every context builder may read besides its key: the app's settings and witness."""

    settings: AppSettings
    witness: Witness


@dataclass(frozen=True, slots=True)
class Context:
    """One render: the template's variables, and the answer's status and headers."""

    variables: Mapping[str, Any]
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Page:
    """A template and the pure function that builds its context.

    ``heavy`` (or, for a page that is heavy only for some keys, a function of the key) sends
    its new renders to the heavy lane (app/rendering/lanes.py); ``classroom`` sends them all
    to the classroom lane, whatever their weight.
    """

    template: str
    build: Callable[[Env, Any, Any], Context]
    heavy: bool | Callable[[Any], bool] = False
    classroom: bool = False
    # Leave out the parts the browser says it holds (app/rendering/parts.py): a fragment
    # whose out-of-band parts mostly repeat what is on screen.
    sends_changed_parts: bool = False

    def is_heavy(self, key: Any) -> bool:
        return self.heavy(key) if callable(self.heavy) else self.heavy

    def lane(self, lanes: Lanes, key: Any) -> Lane:
        return lanes.pick(self.is_heavy(key), self.classroom)


@dataclass(frozen=True, slots=True)
class Encoded:
    """A rendered text as it is kept: UTF-8, gzipped once, when it is rendered.

    Every browser accepts gzip, so a cached page is sent as it is kept, with no compression
    per response (Starlette's gzip middleware passes an encoded body through untouched), and
    the caches hold ~7x less than the text itself (a str of these pages, with their ✓, · and
    —, takes two bytes a character). The rare client that does not accept gzip gets it
    decompressed, ~0.1 ms.
    """

    gzipped: bytes
    parts: tuple[Span, ...] = ()

    @property
    def plain(self) -> bytes:
        return gzip.decompress(self.gzipped)

    def without(self, drop: frozenset[str]) -> tuple[bytes, tuple[str, ...]] | None:
        """The text without the parts in ``drop``, and the digests it left out; None when
        it holds none of them."""
        left_out = tuple(s.digest for s in self.parts if s.digest in drop)
        if not left_out:
            return None
        return cut(self.plain, self.parts, drop), left_out


def encode(text: str) -> Encoded:
    body, spans = unmark(text)
    return Encoded(_gzip(body), spans)


def _gzip(body: bytes) -> bytes:
    return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)


@dataclass(frozen=True, slots=True)
class Rendered:
    body: Encoded
    status: int
    headers: tuple[tuple[str, str], ...]


class EncodedHTML(Response):
    """An HTML answer sent gzipped or plain, as the client's Accept-Encoding asks."""

    media_type = "text/html"

    def __init__(self, rendered: Rendered, cut_held: bool = False) -> None:
        # The body is chosen in __call__, when the client's Accept-Encoding is known.
        super().__init__(b"", rendered.status, dict(rendered.headers))
        self.encoded, self.cut_held = rendered.body, cut_held

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.headers.add_vary_header("Accept-Encoding")
        request = Headers(scope=scope)
        gzipped = "gzip" in request.get("accept-encoding", "")  # as GZipMiddleware tests
        trimmed = None
        if self.cut_held:
            self.headers.add_vary_header(PARTS_HEADER)
            trimmed = self.encoded.without(held(request.get(PARTS_HEADER, "")))
        if trimmed is not None:  # compressed per answer: ~0.1 ms for what is left of a fragment
            body, left_out = trimmed
            self.body = _gzip(body) if gzipped else body
            self.headers[PARTS_HEADER] = " ".join(left_out)
        else:
            self.body = self.encoded.gzipped if gzipped else self.encoded.plain
        if gzipped:
            self.headers["Content-Encoding"] = "gzip"
        self.headers["Content-Length"] = str(len(self.body))
        await super().__call__(scope, receive, send)


class Busy503(Response):
    """A lane's queue is full: say so, and when to come back (never a blank panel). A
    fragment gets the sentence; a whole page gets ``page``, which asks again by itself."""

    media_type = "text/html"

    def __init__(self, busy: Busy, page: str | None = None) -> None:
        body = page if page is not None else f'<p class="problem" role="alert">{busy}</p>'
        headers = {"Retry-After": str(busy.retry_after), "Cache-Control": "no-store"}
        super().__init__(body, 503, headers)


class Deferred(Response):
    """An answer rendered when it is sent: a cached one at once, a new one in its lane.

    The route's handler only parses the request and returns this; the render waits in the
    lane on the event loop, holding no thread (app/rendering/lanes.py).
    """

    def __init__(self, pipeline: Pipeline, page: Page, key: Hashable, variant: Hashable) -> None:
        super().__init__(b"", 200)
        self._job = (pipeline, page, key, variant)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        pipeline, page, key, variant = self._job
        rendered = pipeline.cached(page, key, variant)
        answer: Response
        if rendered is None:
            try:
                lane = page.lane(pipeline.lanes, key)
                rendered = await lane.run_unless(
                    partial(disconnected, receive), partial(pipeline.render, page, key, variant)
                )
            except Busy as busy:
                fragment = "hx-request" in Headers(scope=scope)
                answer = Busy503(busy, None if fragment else pipeline.busy_page(busy, scope))
            except Gone:
                return  # the client has left: there is nobody to answer
            else:
                answer = EncodedHTML(rendered, page.sends_changed_parts)
        else:
            answer = EncodedHTML(rendered, page.sends_changed_parts)
        await answer(scope, receive, send)


async def disconnected(receive: Receive) -> bool:
    """Has the client gone, as far as the server knows now? Never waits: it reads what the
    connection already has (a GET's empty body; a disconnect, before or after it) and stops
    at the first read that would wait. The routes that render in a lane read no body after.

    Not Starlette's `Request.is_disconnected`: it reads one message, so a client that left
    after its GET's empty body still looks present to it (test_lanes_gone.py holds both)."""
    with anyio.CancelScope() as scope:
        scope.cancel()  # a read that would wait is cut short; a message already there is not
        while True:
            if (await receive())["type"] == "http.disconnect":
                return True
    return False


class Pipeline:
    """Renders each (page, key, variant) once; one per app, made by `create_app`."""

    def __init__(
        self, templates: Jinja2Templates, env: Env, lanes: Lanes, size: int = RENDER_CACHE
    ) -> None:
        self.templates, self.env, self.lanes = templates, env, lanes
        # No gate: the lanes already run one render at a time each.
        self._memo: Memo[Rendered] = Memo(self._render, size)

    def render(self, page: Page, key: Hashable = None, variant: Hashable = None) -> Rendered:
        """The answer, rendered here and now if it is new (in the caller's thread)."""
        return self._memo(page, key, variant)

    def cached(self, page: Page, key: Hashable = None, variant: Hashable = None) -> Rendered | None:
        return self._memo.get(page, key, variant)

    def respond(self, page: Page, key: Hashable = None, variant: Hashable = None) -> Response:
        return Deferred(self, page, key, variant)

    def busy_page(self, busy: Busy, scope: Scope) -> str:
        """The whole page a full lane answers with: it says so and reloads itself."""
        path = "/" + scope.get("path", "/").lstrip("/")  # never "//host/...": another origin
        query = scope.get("query_string", b"").decode("latin-1")
        again = f"{path}?{query}" if query else path
        return self.templates.get_template("busy.html").render(
            message=str(busy), seconds=busy.retry_after, again=again
        )

    def _render(self, page: Page, key: Hashable, variant: Hashable) -> Rendered:
        context = page.build(self.env, key, variant)
        body = self.templates.get_template(page.template).render(**context.variables)
        return Rendered(encode(body), context.status, context.headers)
