"""Security headers on every response.

The CSP allows scripts from our own origin only (no inline script, no eval), so every
script is an ES module under static/; styles likewise. Who may frame the station comes from
settings because the route cockpit embeds it.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def security_headers(frame_ancestors: str) -> list[tuple[bytes, bytes]]:
    csp = "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data: blob:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            f"frame-ancestors {frame_ancestors}",
        ]
    )
    return [
        (b"content-security-policy", csp.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
    ]


class SecurityHeaders:
    """Pure ASGI middleware (not BaseHTTPMiddleware): adds headers without buffering bodies."""

    def __init__(self, app: ASGIApp, *, frame_ancestors: str) -> None:
        self.app = app
        self.headers = security_headers(frame_ancestors)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        await self.app(scope, receive, send_with_headers)
