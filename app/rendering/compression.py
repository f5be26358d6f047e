"""Gzip for pages and fragments, letting Starlette's template debug message through.

Starlette's GZipMiddleware drops the "http.response.debug" message by which a test client
learns which template and context made a response; this wrapper hands that one message
straight to the client and everything else to the compressor, so the tests exercise the
same middleware stack that serves learners.
"""

from __future__ import annotations

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Level 5, not Starlette's 9: a 60 KB fragment compresses in well under a millisecond and
# still shrinks ~5x; level 9 spent several ms of every slider answer on it. Rendered pages
# are compressed once, at this level, when they are rendered (app/rendering.py).
GZIP_LEVEL = 5


class Compress:
    def __init__(self, app: ASGIApp, *, minimum_size: int = 1024) -> None:
        self.app = app
        self.minimum_size = minimum_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def app_with_debug_bypass(scope: Scope, receive: Receive, compressed: Send) -> None:
            async def route(message: Message) -> None:
                await (send if message["type"] == "http.response.debug" else compressed)(message)

            await self.app(scope, receive, route)

        await GZipMiddleware(
            app_with_debug_bypass, minimum_size=self.minimum_size, compresslevel=GZIP_LEVEL
        )(scope, receive, send)
