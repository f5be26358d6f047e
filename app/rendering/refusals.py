"""The JSON API's 422: each refused field by name, without echoing what was sent.

FastAPI's own answer repeats every refused input whole: a 1 MB prompt came back as 1 MB of
JSON (16 KiB behind the server's head limit, app/edge/protocol.py), and a parameter's name is
echoed in its location. Here each error keeps its location, message and type, with a name or
value cut to what a message may show (`app.station.state.query.shown_key`), and its input only when
it is that short already.
"""

from __future__ import annotations

from typing import Any

from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.requests import Request

from app.station.state.query import shown_key

SHORT = 40  # characters: as much of a name or value as a message shows (shown_key)


def _short(error: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "loc": [shown_key(part) if isinstance(part, str) else part for part in error["loc"]],
        "msg": error["msg"],
        "type": error["type"],
    }
    value = error.get("input")
    if isinstance(value, int | float | bool) or (isinstance(value, str) and len(value) <= SHORT):
        out["input"] = shown_key(value) if isinstance(value, str) else value
    return out


async def validation_refused(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)  # registered for that class only
    return JSONResponse({"detail": [_short(e) for e in jsonable_encoder(exc.errors())]}, 422)
