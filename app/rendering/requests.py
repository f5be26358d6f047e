"""Request-shape middleware: HEAD answered as GET without a body, and a trailing slash
redirected to a relative address.

FastAPI's routes answer GET only (`curl -I` got 405), and its slash redirect builds an
absolute URL from the Host header, so `Host: evil.example` sent `/station/` to
`http://evil.example/station`: an open redirect once the station is bound to every
interface for a class. Here the slash is dropped with a relative `Location` (one leading
slash, so `//evil.example/` cannot become a protocol-relative address).
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class RequestShape:
    """Pure ASGI middleware; the app's own slash redirect is switched off (redirect_slashes)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if len(path) > 1 and path.endswith("/") and not path.startswith("/static/"):
            await _redirect(scope, send, "/" + path.strip("/"))
            return
        if scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, without_body)


async def _redirect(scope: Scope, send: Send, path: str) -> None:
    query = scope.get("query_string", b"").decode("latin-1")
    location = quote(path, safe="/%:@!$&'()*+,;=-._~") + (f"?{query}" if query else "")
    await send(
        {
            "type": "http.response.start",
            "status": 308,
            "headers": [(b"location", location.encode("latin-1")), (b"content-length", b"0")],
        }
    )
    await send({"type": "http.response.body", "body": b""})
