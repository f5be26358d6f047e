"""A learner in a live class without JavaScript: join with a cookie, send with a form.

With JavaScript a learner's membership is in localStorage and class.js sends each recorded
prediction itself (static/js/class.js). Without it, joining (`POST /class/<code>/join`, the
join page's button inside `<noscript>`) keeps the same two things in an HttpOnly, SameSite=Strict
cookie instead: the class's code and a random learner id (128 bits from `secrets`, the
format the JavaScript draws, and no name). The station's class banner then offers, inside
`<noscript>` and only beside a prediction on one of the class's questions, a form that posts
the recorded prediction to `POST /class/predict`, which answers with a page saying what the
class took, or why not and where to go.

The station's page itself never reads the cookie: it is rendered and cached from its state
alone, the same for every learner, so the form is there for anyone without JavaScript and
the answer page says so when this browser has not joined. Both posts refuse a cross-site
request (`cross_site`), as every other change to a class does.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import Response
from fastapi.routing import APIRoute

from app.classes import threads as class_threads
from app.classes.contract import (
    CLASS_INTERVENTIONS,
    CLASS_PRESET_BY_ID,
    LEARNER_COOKIE,
    LEARNER_ID_PATTERN,
)
from app.classes.errors import ClassRefused, QuestionMoved
from app.classes.origin import cross_site
from app.classes.pages import (
    NO_STORE,
    class_of,
    code_or_404,
    forbidden,
    pages_of,
    read_form,
    redirect_with_cookie,
    refuse,
    room_of,
)
from app.classes.threads import on_class_threads
from app.contract.route import Intervention
from app.rendering.pipeline import Context, Env, Page
from app.station.state.query import INTERVENTION_LABELS

router = APIRouter(include_in_schema=False, route_class=on_class_threads(APIRoute))
COOKIE_PATH = "/class"  # both posts are under it; the station's own pages never see it
_LEARNER = re.compile(LEARNER_ID_PATTERN)
# Where the answer page links back to: the station's own address, as the banner writes it
# (`StationState.url`): a path on this server, never another site's.
_BACK = re.compile(r"/station(\?[^\s#\\]*)?")
BACK_MAX = 4096
_SAID = {"yes": True, "no": False, "": None}
FIELDS = ("question", "intervention", "faster", "kept", "back")


def membership(request: Request) -> tuple[str, str] | None:
    """The class code and learner id this browser joined with, if its cookie is well formed."""
    raw = request.cookies.get(LEARNER_COOKIE, "")
    code, _, learner = raw.partition(".")
    if len(raw) > 64 or not _LEARNER.fullmatch(learner):
        return None
    found = code_or_404(request, code)
    return None if isinstance(found, Response) else (found, learner)


@router.post("/class/{code}/join")
def join_without_script(request: Request, code: str) -> Response:
    """Join with a cookie and open the class's question (the same learner id on a rejoin)."""
    info = class_of(request, code, posted=True)
    if isinstance(info, Response):
        return info
    mine = membership(request)
    learner = mine[1] if mine and mine[0] == info.code else secrets.token_hex(16)
    to = CLASS_PRESET_BY_ID[info.question].url
    cookie = (LEARNER_COOKIE, f"{info.code}.{learner}")
    return redirect_with_cookie(request, to, cookie, COOKIE_PATH, info.expires_at)


@dataclass(frozen=True, slots=True)
class Sent:
    """The answer page: what the class took, or why it did not (and where to go)."""

    status: int
    title: str
    message: str
    code: str = ""  # the class, once the browser has joined one
    back: str = ""  # the station as the learner left it
    go: str = ""  # the class's current question, when this page is not on it
    said: tuple[str, ...] = ()  # the prediction as the class took it


def _sent(env: Env, s: Sent, _: object) -> Context:
    return Context({"s": s}, s.status, (NO_STORE,))


SENT = Page("class/sent.html", _sent, classroom=True)


def _problem(fields: dict[str, str]) -> str:
    """Why the form is not one the banner writes, naming the field; "" when it is."""
    if set(fields) - set(FIELDS):
        return f"The form may carry only {', '.join(FIELDS)}."
    if fields.get("question", "") not in CLASS_PRESET_BY_ID:
        return "question must be the id of one of the station's presets."
    if fields.get("intervention", "") not in CLASS_INTERVENTIONS:
        names = ", ".join(i.value for i in CLASS_INTERVENTIONS)
        return f"intervention must be one of {names}."
    for name in ("faster", "kept"):
        if fields.get(name, "") not in _SAID:
            return f"{name} must be yes, no or empty (not said)."
    return ""


def _back(fields: dict[str, str], question: str) -> str:
    back = fields.get("back", "")
    ok = len(back) <= BACK_MAX and _BACK.fullmatch(back)
    return back if ok else CLASS_PRESET_BY_ID[question].url


@router.post("/class/predict")
async def send_without_script(request: Request) -> Response:
    """Send the recorded prediction the station's banner carries to this browser's class."""
    refused = cross_site(request)
    if refused:
        return forbidden(request, refused)
    fields = await read_form(request, max_fields=2 * len(FIELDS))
    if fields is None:
        return forbidden(request, "That form is larger than the station ever sends.")
    return await class_threads.run(_send, request, fields)


def _send(request: Request, fields: dict[str, str]) -> Response:
    problem = _problem(fields)
    if problem:
        return pages_of(request).respond(SENT, Sent(422, "Not sent", problem))
    question = fields["question"]
    back = _back(fields, question)
    mine = membership(request)
    if mine is None:
        message = (
            "This browser has not joined a class, so there is nowhere to send it. Enter the "
            "code on the projector to join, then predict again."
        )
        return pages_of(request).respond(SENT, Sent(409, "Not in a class", message, back=back))
    code, learner = mine
    intervention = Intervention(fields["intervention"])
    faster, kept = _SAID[fields.get("faster", "")], _SAID[fields.get("kept", "")]
    try:
        room_of(request).submit(code, learner, question, intervention.value, faster, kept)
    except QuestionMoved as error:
        go = CLASS_PRESET_BY_ID[error.current].url
        sent = Sent(409, "Not sent", error.message, code, back, go)
        return pages_of(request).respond(SENT, sent)
    except ClassRefused as error:  # an ended class too: the cookie expires with it
        return refuse(request, error)
    said = (
        f"Predicted: {INTERVENTION_LABELS[intervention]}",
        f"Faster: {_word(faster)}",
        f"Keeps the target distribution: {_word(kept)}",
    )
    message = (
        f"Your prediction is in class {code}'s tally. You can change it until the reveal: "
        "record another on the station and send it again."
    )
    return pages_of(request).respond(SENT, Sent(200, "Sent", message, code, back, said=said))


def _word(said: bool | None) -> str:
    return "not said" if said is None else ("yes" if said else "no")
