"""The cross-site rule for every state-changing request to a class (any POST).

A request is refused (403) when

1. it carries `Sec-Fetch-Site: cross-site` (a browser telling us another site made it), or
   `same-site` without an `Origin` of ours (a sibling site's page), or
2. it carries an `Origin` that is not this server's own origin (scheme, host and port as the
   request reached us; `Origin: null`, from a sandboxed frame or a redirect, is not ours), or
3. it carries neither header (curl, scripts, tests, old browsers) and neither an
   `Authorization: Bearer …` header nor a body declared `Content-Type: application/json`.

Why this is enough: every current browser sends `Origin` on a cross-origin POST and
`Sec-Fetch-Site` on every request, so 1 and 2 stop a page elsewhere from posting to us. A
browser that sends neither can still not forge 3: an HTML form cannot send JSON or an
Authorization header, and a script can only do so after a CORS preflight, which this server
never grants (it sends no Access-Control-* header). The station's own pages post with their
own origin and pass. Not covered: DNS rebinding (a page whose own name resolves to this
server is same-origin by every header); it gains no instructor key, which lives only in the
instructor's browser under this origin's own name.
"""

from __future__ import annotations

from starlette.requests import Request

REFUSED = "Refused: a request that changes a class must come from this station's own pages."


def own_origin(request: Request) -> str:
    base = request.base_url  # scheme and Host as the request reached us
    return f"{base.scheme}://{base.netloc}".lower()


def cross_site(request: Request) -> str | None:
    """Why a state-changing request is refused, or None when it may go on."""
    headers = request.headers
    if headers.get("sec-fetch-site", "").strip().lower() == "cross-site":
        return REFUSED
    origin = headers.get("origin")
    if origin is not None:
        return None if origin.strip().lower() == own_origin(request) else REFUSED
    site = headers.get("sec-fetch-site")
    if site is not None:
        # same-origin, or none (the user's own action); same-site is a sibling's page.
        return None if site.strip().lower() in ("same-origin", "none") else REFUSED
    bearer = headers.get("authorization", "").lower().startswith("bearer ")
    media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return None if bearer or media == "application/json" else REFUSED
