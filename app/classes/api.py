"""The live class as JSON: open a class, poll it, predict, tally, and the
instructor's question and reveal. The pages use the same service (`app.state.classes`).

Every route here goes through `ClassRoute`, which, before FastAPI reads a body:

- refuses a state-changing request (POST, DELETE) from another site with 403 (the rule is
  `app.classes.origin`'s docstring);
- refuses a body over `MAX_BODY` bytes with 413, by its Content-Length and, for a body sent
  without one, by counting what is read, so a large body is never read whole nor parsed;
- answers each refusal of the service (`app.classes.errors`, `app.classes.refusals`) with
  its status and sentence: 404 unknown or expired class (naming the code when it is one),
  401 (with `WWW-Authenticate: Bearer`) and 403 for a missing and a wrong instructor key,
  403 not the class's instructor, 404 no such learner, 409 revealed or moved on, 423 a
  learner new to a locked class, 429 with Retry-After, 503 when the storage is down;
- strips every 422 of what was sent (its `input`, and any name in its location that is not
  one of ours), so no field a learner filled in ever comes back; the app's handler
  (`app.rendering.refusals`) then answers it as the rest of the API does.

A submission runs in the thread pool like every `def` route, but at most `WRITERS` at once
per process (`_writers`): a burst of 200 learners waits on the event loop instead of taking
all 40 threads, so the projector's polls and the pages are still answered meanwhile
(bench/classes.py: the tally's p99 under the burst went from ~0.2-1 s to ~40-60 ms on SQLite).

The instructor's actions take `Authorization: Bearer <host_key>`; opening a class takes
`Authorization: Bearer <instructor key>` where `STATION08_INSTRUCTOR_KEY` is set, and is
otherwise limited per client address (`request.client.host`: behind a reverse proxy, the
proxy's, unless uvicorn trusts its forwarded headers: `FORWARDED_ALLOW_IPS`). Rate limits
are counted in the database (`app.classes.limits`), so they are shared by every worker
process.
`join_url` and `host_url` are built from the address the instructor's own request used
(scheme and Host): the one their browser, and so the class, reached this server at; they are
only ever shown to that instructor, so a forged Host misleads no one else. Answers carry
`Cache-Control: no-store`: a poll must never be answered from a cache, and the host key must
never be kept in one.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import partial
from typing import Annotated, Any

from anyio import CapacityLimiter, to_thread
from fastapi import APIRouter, Header, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException  # what FastAPI's body read raises
from starlette.types import Message, Receive

from app.classes.codes import normal_code
from app.classes.errors import (
    AlreadyRevealed,
    ClassFull,
    ClassRefused,
    NotHost,
    QuestionMoved,
    RateLimited,
    StorageUnavailable,
    UnknownClass,
    UnknownQuestion,
)
from app.classes.models import (
    ClassAnswer,
    Counted,
    LearnerId,
    OpenClass,
    OpenedAnswer,
    Prediction,
    PresetId,
    QuestionChange,
    Refusal,
    Removed,
    TallyAnswer,
)
from app.classes.origin import cross_site
from app.classes.refusals import (
    AmbiguousLearner,
    ClassLocked,
    InstructorKeyMissing,
    InstructorKeyWrong,
    UnknownLearner,
)
from app.classes.service import ClassRoom
from app.classes.threads import on_class_threads

WRITERS = 8  # threads one process gives submissions at once (its writing connections: 1-8)
MAX_BODY = 2 * 1024  # bytes: a prediction is ~150
TOO_LARGE = f"Refused: a request body here may be at most {MAX_BODY} bytes."
STATUS: dict[type[ClassRefused], int] = {
    UnknownClass: 404,
    NotHost: 403,
    AlreadyRevealed: 409,
    QuestionMoved: 409,
    ClassFull: 409,
    UnknownQuestion: 422,
    RateLimited: 429,
    StorageUnavailable: 503,
    InstructorKeyMissing: 401,
    InstructorKeyWrong: 403,
    ClassLocked: 423,
    UnknownLearner: 404,
    AmbiguousLearner: 409,
}
# Names a 422's location may show: ours. Anything else (an extra field's name) is not echoed.
OUR_NAMES = frozenset(
    {"body", "path", "query", "header", "code", "learner", "question", "intervention"}
    | {"faster", "kept", "preset"}
)

NOT_JSON = {
    "loc": ("body",),
    "msg": "the body must be a JSON object (UTF-8)",
    "type": "json_invalid",
}
Handler = Callable[[Request], Coroutine[Any, Any, Response]]


def _refusal(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        {"detail": message}, status, headers={"cache-control": "no-store", **(headers or {})}
    )


def _answer_refused(refused: ClassRefused) -> JSONResponse:
    status = STATUS.get(type(refused), 409)
    if status == 422:  # the shape every 422 of the API has
        body = {
            "detail": [{"loc": ["body", "question"], "msg": refused.message, "type": "value_error"}]
        }
        return JSONResponse(body, 422, headers={"cache-control": "no-store"})
    headers = {}
    if isinstance(refused, RateLimited):
        headers["retry-after"] = str(refused.retry_after)
    elif isinstance(refused, StorageUnavailable):
        headers["retry-after"] = "1"
    elif isinstance(refused, InstructorKeyMissing):
        headers["www-authenticate"] = "Bearer"
    return _refusal(status, refused.message, headers)


def _stripped(errors: Any) -> list[dict[str, Any]]:
    out = []
    for error in errors:
        loc = [p if isinstance(p, int) or p in OUR_NAMES else "(unexpected)" for p in error["loc"]]
        out.append({"loc": loc, "msg": error["msg"], "type": error["type"]})
    return out


def _capped(receive: Receive) -> Receive:
    seen = 0

    async def capped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > MAX_BODY:
                raise HTTPException(413, TOO_LARGE)  # FastAPI re-raises it from the body read
        return message

    return capped


class ClassRoute(APIRoute):
    def get_route_handler(self) -> Handler:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            if request.method in ("POST", "DELETE"):
                refused = cross_site(request)
                if refused:
                    return _refusal(403, refused)
                length = request.headers.get("content-length", "0")
                if not length.isdigit() or int(length) > MAX_BODY:
                    return _refusal(413, TOO_LARGE)
                request = Request(request.scope, _capped(request.receive))
            try:
                response = await handler(request)
            except ClassRefused as refused:
                return _answer_refused(refused)
            except RequestValidationError as invalid:
                raise RequestValidationError(_stripped(invalid.errors())) from None
            except HTTPException as failed:
                if failed.status_code != 400:
                    raise
                # FastAPI's 400 for a body it could not decode (not UTF-8): a 422 as any
                # other body that is not the JSON asked for.
                raise RequestValidationError([NOT_JSON]) from None
            response.headers["cache-control"] = "no-store"
            return response

        return guarded


def _refused(description: str, *, retry: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"model": Refusal, "description": description}
    if retry:
        out["headers"] = {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds."}}
    return out


Responses = dict[int | str, dict[str, Any]]
UNKNOWN: Responses = {
    404: _refused("No open class has this code (never opened, expired, or not a code).")
}
CHANGES: Responses = {
    403: _refused("A request from another site, or an instructor action without the host key."),
    413: _refused(f"The body is over {MAX_BODY} bytes."),
}
STORAGE: Responses = {503: _refused("The class storage is not answering.", retry=True)}

router = APIRouter(
    prefix="/api/classes",
    tags=["class"],
    route_class=on_class_threads(ClassRoute),
    responses=STORAGE,
)
Code = Annotated[str, Path(description="The class's join code (six letters and digits).")]
# A header parameter, not an OpenAPI security scheme: a scheme declares the key required,
# which promises a 401 without it; here a missing key is refused as a wrong one is (403).
HostKey = Annotated[
    str | None,
    Header(
        alias="Authorization",
        description="`Bearer <host key>` (what `POST /api/classes` returned); else 403.",
    ),
]


def _classes(request: Request) -> ClassRoom:
    classes: ClassRoom = request.app.state.classes  # made by create_app
    return classes


def _writers(request: Request) -> CapacityLimiter:
    """The threads submissions may hold at once, per app: a burst of 200 waits here, on the
    event loop, and leaves the rest of the thread pool (40) to the polls and the pages."""
    limiter: CapacityLimiter | None = getattr(request.app.state, "class_writers", None)
    if limiter is None:  # made on the app's own event loop, on first use
        limiter = request.app.state.class_writers = CapacityLimiter(WRITERS)
    return limiter


def _key(authorization: str | None) -> str:
    scheme, _, key = (authorization or "").strip().partition(" ")
    return key.strip() if scheme.lower() == "bearer" else ""


InstructorKey = Annotated[
    str | None,
    Header(
        alias="Authorization",
        description="`Bearer <instructor key>` where the server sets `STATION08_INSTRUCTOR_KEY`"
        " (else 401 without it, 403 with a wrong one); ignored where it does not.",
    ),
]


def client_address(request: Request) -> str:
    """The address the opening limit counts: the TCP peer's (a reverse proxy's own, unless
    uvicorn is told to trust its forwarded headers, `FORWARDED_ALLOW_IPS`)."""
    return request.client.host if request.client else ""


@router.post(
    "",
    status_code=201,
    summary="Open a class: its join code, join URL and the instructor's key",
    responses={
        401: _refused("The server sets an instructor key and none was sent (WWW-Authenticate)."),
        **CHANGES,
        403: _refused("A request from another site, or a wrong instructor key."),
        429: _refused("Too many classes opened lately (from this address).", retry=True),
    },
)
def open_class(
    request: Request, body: OpenClass | None = None, key: InstructorKey = None
) -> OpenedAnswer:
    opened = _classes(request).open(
        str(request.base_url), client_address(request), _key(key) or None
    )
    return OpenedAnswer(
        code=opened.code,
        host_key=opened.host_key,
        join_url=opened.join_url,
        host_url=opened.host_url,
        expires_at=opened.expires_at,
    )


@router.get("/{code}", summary="A class as a learner's page polls it", responses=UNKNOWN)
def class_info(request: Request, code: Code) -> ClassAnswer:
    info = _classes(request).find(code)
    if info is None:
        raise UnknownClass(normal_code(code) or "")  # names the code only when it is one
    return ClassAnswer.of(info)


@router.post(
    "/{code}/predictions",
    summary="Record a learner's prediction (a new one replaces theirs)",
    responses={
        **UNKNOWN,
        **CHANGES,
        409: _refused("The question was revealed, or the class has moved on, or is full."),
        423: _refused("The class is locked, and this learner has no prediction in it."),
        429: _refused("Too many submissions from this learner or to this class.", retry=True),
    },
)
async def predict(request: Request, code: Code, prediction: Prediction) -> Counted:
    submit = partial(
        _classes(request).submit,
        code,
        prediction.learner,
        prediction.question,
        prediction.intervention,
        prediction.faster,
        prediction.kept,
    )
    info = await to_thread.run_sync(submit, limiter=_writers(request))
    return Counted(
        counted=True,
        code=info.code,
        question=info.question,
        answered=info.answered,
        revealed=info.revealed,
    )


@router.get("/{code}/tally", summary="The class's predictions on a question", responses=UNKNOWN)
def tally(
    request: Request,
    code: Code,
    question: Annotated[
        PresetId | None, Query(description="A preset id; default: the current.")
    ] = None,
) -> TallyAnswer:
    return TallyAnswer.of(_classes(request).tally(code, question))


@router.post(
    "/{code}/question",
    summary="Move the class to a preset (instructor)",
    responses={**UNKNOWN, **CHANGES},
)
def set_question(
    request: Request, code: Code, change: QuestionChange, key: HostKey = None
) -> ClassAnswer:
    return ClassAnswer.of(_classes(request).set_question(code, _key(key), change.preset))


@router.post(
    "/{code}/reveal",
    summary="Reveal the current question's answer; predictions on it close (instructor)",
    responses={**UNKNOWN, **CHANGES},
)
def reveal(request: Request, code: Code, key: HostKey = None) -> ClassAnswer:
    return ClassAnswer.of(_classes(request).reveal(code, _key(key)))


@router.post(
    "/{code}/lock",
    summary="Close the class to new learners; those in it may still change answers (instructor)",
    responses={**UNKNOWN, **CHANGES},
)
def lock(request: Request, code: Code, key: HostKey = None) -> ClassAnswer:
    return ClassAnswer.of(_classes(request).lock(code, _key(key)))


@router.post(
    "/{code}/unlock",
    summary="Let new learners into the class again (instructor)",
    responses={**UNKNOWN, **CHANGES},
)
def unlock(request: Request, code: Code, key: HostKey = None) -> ClassAnswer:
    return ClassAnswer.of(_classes(request).unlock(code, _key(key)))


@router.delete(
    "/{code}/learners/{learner}",
    summary="Remove a learner: their predictions in the class are deleted (instructor)",
    responses={
        404: _refused("No open class has this code, or the class has no such learner."),
        **CHANGES,
    },
)
def remove_learner(
    request: Request,
    code: Code,
    learner: Annotated[LearnerId, Path()],
    key: HostKey = None,
) -> Removed:
    info, gone = _classes(request).remove_learner(code, _key(key), learner)
    return Removed(code=info.code, removed=gone, answered=info.answered)
