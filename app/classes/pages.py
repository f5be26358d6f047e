"""The live class's pages: open a class, the projector's dashboard, and joining it.

Every page works without JavaScript: opening a class (with the instructor key where the
server sets one: a password field, compared by the class service in constant time), Reveal,
Next question and choosing a question are POST forms; joining is a GET form; a refresh of
the dashboard shows the current tally. With JavaScript the dashboard's tally polls its own
fragment (htmx, `every 1s`): several uvicorn workers share one class through the database,
so any worker can answer a poll from what the database holds, with nothing to keep open per
projector or to fan out between workers (which server-sent events would need). A poll whose
answer would not change what is on screen is answered 204 and swaps nothing.

The instructor's key reaches the browser once and is kept in an HttpOnly, SameSite=Strict
cookie scoped to the class's own path (`/class/<code>`): opening a class here sets it on the
redirect to the dashboard, so the key never appears in an address at all. A key from the JSON
API (`POST /api/classes`) is handed over at its `host_url`, `/class/<code>/host#key=…`: the
key after `#`, which a browser never sends, so no server's or proxy's log can keep it; the
page's script drops it from the address and the history and posts it in a form's body, which
moves it into the cookie and redirects to the dashboard (without JavaScript the instructor
pastes it into that form). The projector never shows it. Instructor
actions also refuse a cross-site request (`cross_site`), and the class service checks the key.

Rendering goes through the app's one pipeline (app/rendering/pipeline.py), keyed by what the
page shows (the class's counts, its question, whether it is revealed): a poll that finds the
same tally is answered from the render cache, and the reveal, which serves the question's
seeded requests once per intervention, runs in the heavy lane, never on the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import parse_qs

import segno
from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.routing import APIRoute
from markupsafe import Markup, escape

from app.classes import threads as class_threads
from app.classes.codes import normal_code
from app.classes.contract import (
    CLASS_INTERVENTIONS,
    CLASS_PRESET_BY_ID,
    CLASS_PRESETS,
    DASHBOARD_POLL_SECONDS,
    HOST_COOKIE,
    ClassPreset,
)
from app.classes.errors import (
    AlreadyRevealed,
    ClassRefused,
    NotHost,
    RateLimited,
    StorageUnavailable,
    UnknownClass,
    UnknownQuestion,
)
from app.classes.origin import cross_site
from app.classes.records import ClassInfo, Learners, Split
from app.classes.refusals import (
    ClassLocked,
    InstructorKeyMissing,
    InstructorKeyWrong,
    UnknownLearner,
)
from app.classes.service import ClassRoom
from app.classes.threads import on_class_threads
from app.classes.views import (
    Said,
    Snapshot,
    live_class_view,
    snapshot,
)
from app.rendering.pipeline import Context, Env, Page, Pipeline
from app.station.state.query import INTERVENTION_LABELS
from app.words import say

router = APIRouter(include_in_schema=False, route_class=on_class_threads(APIRoute))
NO_STORE = ("Cache-Control", "no-store")
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
FORM_MAX = 1024  # bytes: the question form sends one preset id


# --------------------------------------------------------------------------- the service


def room_of(request: Request) -> ClassRoom:
    room: ClassRoom = request.app.state.classes  # made by create_app
    return room


def _snapshot(request: Request, code: str) -> Snapshot:
    """The class's current question and its tally, as counts of validated values only."""
    tally = room_of(request).tally(code)
    by = {
        i: (Said(*_split(e.faster)), Said(*_split(e.kept)))
        for i, e in tally.by_intervention.items()
    }
    return snapshot(tally.code, tally.question, tally.revealed, by, tally_hidden=tally.hidden)


def _split(s: Split) -> tuple[int, int, int]:
    return s.yes, s.no, s.unsaid


def join_url(request: Request, code: str) -> str:
    """The address a learner's phone opens: this server as the instructor reached it."""
    return f"{str(request.base_url).rstrip('/')}/join/{code}"


def host_key(request: Request, code: str) -> str | None:
    """The instructor's key from this class's cookie, if it is the right one."""
    key = request.cookies.get(HOST_COOKIE)
    if not key or len(key) > 256:
        return None
    return key if room_of(request).is_host(code, key) else None


def redirect_with_cookie(
    request: Request, to: str, cookie: tuple[str, str], path: str, expires: datetime
) -> Response:
    """A 303 to ``to`` that keeps ``cookie`` (name, value) until ``expires``: HttpOnly,
    SameSite=Strict, under ``path``, and never stored by a cache."""
    response = RedirectResponse(to, status_code=303)
    response.set_cookie(
        *cookie,
        expires=expires,
        path=path,
        httponly=True,
        samesite="strict",
        # Secure where the station is served over TLS; a class on a LAN is often plain HTTP.
        secure=request.url.scheme == "https",
    )
    response.headers["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------------- refusals


@dataclass(frozen=True, slots=True)
class Refusal:
    title: str
    message: str  # the service's own sentence: it names only what the server validated
    status: int
    retry_after: int = 0


def _refused(env: Env, r: Refusal, _: object) -> Context:
    headers = [NO_STORE]
    if r.retry_after:
        headers.append(("Retry-After", str(r.retry_after)))
    return Context({"refusal": r}, r.status, tuple(headers))


REFUSED = Page("class/refused.html", _refused, classroom=True)


def refuse(request: Request, error: ClassRefused) -> Response:
    status, title = 409, "Not now"
    retry = 0
    if isinstance(error, UnknownClass):
        status, title = 404, "No such class"
    elif isinstance(error, NotHost):
        status, title = 403, "Only the instructor"
    elif isinstance(error, RateLimited):
        status, title, retry = 429, "Too many at once", error.retry_after
    elif isinstance(error, UnknownQuestion):
        status, title = 422, "No such question"
    elif isinstance(error, StorageUnavailable):
        status, title, retry = 503, "Try again in a moment", 1
    elif isinstance(error, ClassLocked):
        status, title = 423, "Class closed"
    elif isinstance(error, UnknownLearner):
        status, title = 404, "No such learner"
    return pages_of(request).respond(REFUSED, Refusal(title, error.message, status, retry))


def forbidden(request: Request, message: str) -> Response:
    return pages_of(request).respond(REFUSED, Refusal("Only the instructor", message, 403))


NO_KEY = (
    "Only the instructor's browser can do that: it holds the class's key (in a cookie set "
    "when the class was opened). Open the class from that browser."
)


def pages_of(request: Request) -> Pipeline:
    pipeline: Pipeline = request.app.state.pipeline
    return pipeline


def code_or_404(request: Request, text: str) -> str | Response:
    code = normal_code(text)
    return code if code is not None else refuse(request, UnknownClass(""))


# --------------------------------------------------------------------------- open


@dataclass(frozen=True, slots=True)
class OpenForm:
    """The instructor's start: whether it asks for the instructor key, and why a key sent
    was refused."""

    needs_key: bool
    problem: str = ""
    status: int = 200


def _open(env: Env, form: OpenForm, _: object) -> Context:
    hours = env.settings.class_retention_hours
    retention = "1 hour" if hours == 1 else f"{hours} hours"
    headers = [NO_STORE]
    if form.status == 401:
        headers.append(("WWW-Authenticate", "Bearer"))
    return Context({"retention": retention, "form": form}, form.status, tuple(headers))


OPEN = Page("class/open.html", _open, classroom=True)
NO_INSTRUCTOR_KEY = "Opening a class on this server takes the instructor key: type it here."
WRONG_INSTRUCTOR_KEY = (
    "That is not this server's instructor key, so no class was opened: check it and try again."
)


def client_address(request: Request) -> str:
    """Whom the opening limit counts when no instructor key is set: the TCP peer (behind a
    reverse proxy, the proxy itself, unless uvicorn trusts its forwarded headers)."""
    return request.client.host if request.client else ""


@router.get("/class")
def open_page(request: Request) -> Response:
    """The instructor's start: one button opens a class (and a key field, where one is set)."""
    return pages_of(request).respond(OPEN, OpenForm(room_of(request).needs_key))


@router.post("/class")
async def open_class(request: Request) -> Response:
    """Open a class, keep its key in this browser's cookie, and go to the dashboard."""
    refused = cross_site(request)  # the JSON API's rule too (app/classes/origin.py)
    if refused:
        return forbidden(request, refused)
    fields = await read_form(request, max_fields=2)
    if fields is None:
        return forbidden(request, "That form is larger than the opening page ever sends.")
    return await class_threads.run(_open_class, request, fields.get("key", ""))


def _open_class(request: Request, key: str) -> Response:
    room = room_of(request)
    try:
        opened = room.open(str(request.base_url).rstrip("/"), client_address(request), key)
    except InstructorKeyMissing:
        return pages_of(request).respond(OPEN, OpenForm(True, NO_INSTRUCTOR_KEY, 401))
    except InstructorKeyWrong:
        return pages_of(request).respond(OPEN, OpenForm(True, WRONG_INSTRUCTOR_KEY, 403))
    except ClassRefused as error:
        return refuse(request, error)
    cookie, path = (HOST_COOKIE, opened.host_key), f"/class/{opened.code}"
    return redirect_with_cookie(request, path, cookie, path, opened.expires_at)


@dataclass(frozen=True, slots=True)
class Handover:
    """The page a key is handed over on: its class, and what to say."""

    code: str
    from_query: bool  # an address with ?key=: sent to the server, so not taken
    problem: str = ""  # why a sent key was not taken


def _handover(env: Env, h: Handover, _: object) -> Context:
    return Context({"h": h}, 403 if h.problem else 200, (NO_STORE,))


HANDOVER = Page("class/host.html", _handover, classroom=True)
WRONG_KEY = "That is not this class's instructor key: paste the host_key the API answered."


def class_of(request: Request, code: str, posted: bool = False) -> ClassInfo | Response:
    """The open class a path names, or the page refusing it: 404 for no such class, 403 for
    a form ``posted`` from another site (checked before anything is looked up)."""
    found = code_or_404(request, code)
    if isinstance(found, Response):
        return found
    refused = cross_site(request) if posted else None
    if refused:
        return forbidden(request, refused)
    try:
        info = room_of(request).find(found)
    except ClassRefused as error:
        return refuse(request, error)
    return info if info is not None else refuse(request, UnknownClass(found))


@router.get("/class/{code}/host")
def handover(request: Request, code: str, key: str | None = None) -> Response:
    """Where the API's `host_url` leads: host.js moves the key from after `#` into the form
    and sends it; without JavaScript the instructor pastes it. A key in the query is never
    taken: it has been sent in an address, which a server's or a proxy's log may keep."""
    info = class_of(request, code)
    if isinstance(info, Response):
        return info
    return pages_of(request).respond(HANDOVER, Handover(info.code, key is not None))


@router.post("/class/{code}/host")
async def take_key(request: Request, code: str) -> Response:
    """Keep a host key, sent in the form's body, in this class's cookie; go to the dashboard."""
    fields = await read_form(request, max_fields=2)
    if fields is None:
        return forbidden(request, "That form is larger than the handover page ever sends.")
    return await class_threads.run(_take_key, request, code, fields.get("key", "").strip())


def _take_key(request: Request, code: str, key: str) -> Response:
    info = class_of(request, code, posted=True)
    if isinstance(info, Response):
        return info
    try:
        taken = 0 < len(key) <= 256 and room_of(request).is_host(info.code, key)
    except ClassRefused as error:
        return refuse(request, error)
    if not taken:
        return pages_of(request).respond(HANDOVER, Handover(info.code, False, WRONG_KEY))
    path = f"/class/{info.code}"
    return redirect_with_cookie(request, path, (HOST_COOKIE, key), path, info.expires_at)


# --------------------------------------------------------------------------- dashboard


@dataclass(frozen=True, slots=True)
class Dashboard:
    """What the dashboard shows: the render's key (the same tally renders once)."""

    snap: Snapshot
    join_url: str
    host: bool
    has_next: bool
    expires: str
    loopback: bool  # the instructor reached us at 127.0.0.1: a phone cannot
    locked: bool = False  # closed to new learners
    learners: Learners | None = None  # the instructor's list; None on a viewer's page


def qr_svg(url: str) -> Markup | None:
    """The join URL as an inline SVG QR code (segno): black on white with the standard
    four-module quiet zone, so a phone reads it in either colour scheme; named for assistive
    technology, with the URL beside it as text. None where the URL is longer than a QR code
    holds (the Host header a browser sent may be anything): the page gives it as text only."""
    try:
        code = segno.make(url, error="m")
    except segno.DataOverflowError:
        return None
    svg = code.svg_inline(
        scale=1, border=4, dark="#000", light="#fff", omitsize=True, svgclass="qr", lineclass=None
    )
    label = escape(f"QR code for {url}")
    return Markup(svg.replace("<svg ", f'<svg role="img" aria-label="{label}" ', 1))


def _expires(at: datetime) -> str:
    return f"{at:%H:%M} UTC on {at.day} {at:%B}"


def _dashboard(env: Env, d: Dashboard, _: object) -> Context:
    live = live_class_view(d.snap, env.witness)
    nxt = _next_preset(d.snap.question)
    variables = {
        "d": d,
        "live": live,
        "qr": qr_svg(d.join_url),
        "next_title": nxt.shown_title if nxt else "",
        "presets": CLASS_PRESETS,
        "poll_seconds": DASHBOARD_POLL_SECONDS,
        "labels": ANSWER_LABELS,
        "tally_words": TALLY_WORDS,
    }
    return Context(variables, 200, (NO_STORE,))


def _next_preset(question: str) -> ClassPreset | None:
    number = CLASS_PRESET_BY_ID[question].number
    return CLASS_PRESETS[number] if number < len(CLASS_PRESETS) else None


def _live(env: Env, snap: Snapshot, _: object) -> Context:
    variables = {"live": live_class_view(snap, env.witness), "poll_seconds": DASHBOARD_POLL_SECONDS}
    return Context(variables, 200, (NO_STORE,))


def _revealed(key: Dashboard | Snapshot) -> bool:
    # The reveal serves the preset's seeded requests for each intervention chosen: seconds
    # the first time, so it waits in the heavy lane; a tally alone is interactive.
    snap = key.snap if isinstance(key, Dashboard) else key
    return snap.revealed


DASHBOARD = Page("class/dashboard.html", _dashboard, heavy=_revealed, classroom=True)
# The instructor's list of learners shows this many (those who answered the current question
# first); a class holds up to 1 000 per question, which no projector page should carry.
LEARNERS_LISTED = 200
ANSWER_LABELS = {i.value: INTERVENTION_LABELS[i] for i in CLASS_INTERVENTIONS}
# The instructor's control for hiding the live tally until the reveal.
TALLY_WORDS = {action: say(f"classes.tally.{action}") for action in ("hide", "show")}
LIVE = Page("class/_live.html", _live, heavy=_revealed, classroom=True)


@router.get("/class/{code}")
def dashboard(request: Request, code: str) -> Response:
    """The projector's dashboard: code, QR, question, tally; the reveal once revealed."""
    found = code_or_404(request, code)
    if isinstance(found, Response):
        return found
    classes = room_of(request)
    try:
        info = classes.find(found)
        if info is None:
            raise UnknownClass(found)
        snap = _snapshot(request, found)
        instructor = host_key(request, found)
        learners = classes.learners(found, instructor, LEARNERS_LISTED) if instructor else None
    except ClassRefused as error:
        return refuse(request, error)
    key = Dashboard(
        snap,
        join_url(request, found),
        instructor is not None,
        bool(info.has_next),
        _expires(info.expires_at),
        request.url.hostname in LOOPBACK,
        bool(info.locked),
        learners,
    )
    return pages_of(request).respond(DASHBOARD, key)


@router.get("/class/{code}/live")
def live_fragment(request: Request, code: str, seen: str = "") -> Response:
    """The dashboard's live part (htmx polls it); 204 when it would not change."""
    found = code_or_404(request, code)
    if isinstance(found, Response):
        return found
    try:
        snap = _snapshot(request, found)
    except UnknownClass:
        # The class expired under the projector: say so, in place, and stop polling (the
        # answer has no hx-trigger). 200, so htmx swaps it in rather than logging an error.
        return pages_of(request).respond(ENDED, found)
    except ClassRefused as error:
        return refuse(request, error)
    if seen and seen == snap.version:
        return Response(status_code=204, headers={"Cache-Control": "no-store"})
    return pages_of(request).respond(LIVE, snap)


def _ended(env: Env, code: str, _: object) -> Context:
    return Context({"code": code}, 200, (NO_STORE,))


ENDED = Page("class/_ended.html", _ended, classroom=True)


# --------------------------------------------------------------------------- instructor


def _act(request: Request, code: str, action: str, preset: str = "") -> Response:
    """Reveal, Next question, a chosen question, lock, unlock, or remove a learner (whose id
    is `preset`'s argument then): the cookie's key, same site only."""
    found = code_or_404(request, code)
    if isinstance(found, Response):
        return found
    refused = cross_site(request)  # the JSON API's rule too (app/classes/origin.py)
    if refused:
        return forbidden(request, refused)
    classes = room_of(request)
    key = request.cookies.get(HOST_COOKIE, "")
    try:
        if classes.find(found) is None:
            raise UnknownClass(found)
        if not key or len(key) > 256:
            return forbidden(request, NO_KEY)
        if action == "reveal":
            classes.reveal(found, key)
        elif action == "next":
            classes.next_question(found, key)
        elif action == "lock":
            classes.lock(found, key)
        elif action == "unlock":
            classes.unlock(found, key)
        elif action in ("hide-tally", "show-tally"):
            classes.hide_tally(found, key, action == "hide-tally")
        elif action == "remove":
            classes.remove_short(found, key, preset)
        else:
            classes.set_question(found, key, preset)
    except AlreadyRevealed:
        pass  # revealed already (another tab): the dashboard shows it
    except UnknownLearner:
        pass  # removed already (another tab, or a double press): the list shows it
    except NotHost:
        return forbidden(request, NO_KEY)
    except ClassRefused as error:
        return refuse(request, error)
    return RedirectResponse(f"/class/{found}", status_code=303)


@router.post("/class/{code}/reveal")
def reveal(request: Request, code: str) -> Response:
    return _act(request, code, "reveal")


@router.post("/class/{code}/next")
def next_question(request: Request, code: str) -> Response:
    return _act(request, code, "next")


@router.post("/class/{code}/question")
async def choose_question(request: Request, code: str) -> Response:
    """A preset chosen from the dashboard's list (a urlencoded form of one short field; the
    station has no multipart parser, and needs none)."""
    fields = await read_form(request, max_fields=4)
    if fields is None:
        return forbidden(request, "That form is larger than the dashboard ever sends.")
    return await class_threads.run(_act, request, code, "question", fields.get("preset", ""))


@router.post("/class/{code}/lock")
def lock(request: Request, code: str) -> Response:
    """Close the class to new learners (the dashboard's Lock button)."""
    return _act(request, code, "lock")


@router.post("/class/{code}/unlock")
def unlock(request: Request, code: str) -> Response:
    return _act(request, code, "unlock")


@router.post("/class/{code}/tally/hide")
def hide_tally(request: Request, code: str) -> Response:
    """Hide the live tally on the dashboard until the reveal: it then shows only how many
    have answered, so the room predicts without seeing the others' answers."""
    return _act(request, code, "hide-tally")


@router.post("/class/{code}/tally/show")
def show_tally(request: Request, code: str) -> Response:
    return _act(request, code, "show-tally")


@router.post("/class/{code}/remove")
async def remove_learner(request: Request, code: str) -> Response:
    """Remove the learner a form of the dashboard's list names by short id (their
    predictions go); the page never carries a learner's whole id."""
    fields = await read_form(request, max_fields=2)
    if fields is None:
        return forbidden(request, "That form is larger than the dashboard ever sends.")
    return await class_threads.run(_act, request, code, "remove", fields.get("learner", ""))


async def read_form(request: Request, max_fields: int) -> dict[str, str] | None:
    """A urlencoded form of a few short fields, each field's last value; None when the body
    is longer than `FORM_MAX` or has more than ``max_fields`` fields (no form of ours does)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_MAX:
            return None
    try:
        fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=max_fields)
    except ValueError:  # more fields than max_fields
        return None
    return {name: values[-1] for name, values in fields.items()}


# --------------------------------------------------------------------------- joining


@dataclass(frozen=True, slots=True)
class JoinForm:
    problem: str  # "" or why the code was not taken


def _join(env: Env, form: JoinForm, _: object) -> Context:
    return Context({"form": form}, 422 if form.problem else 200)


JOIN = Page("class/join.html", _join, classroom=True)


@router.get("/join")
def join_page(request: Request, code: str | None = None) -> Response:
    """The learner's start: a code field (GET, so it works without JavaScript)."""
    if code is None:
        return pages_of(request).respond(JOIN, JoinForm(""))
    found = normal_code(code[:64])
    if found is None:
        problem = (
            "That is not a class code: a code is six letters and digits, such as K7MPQ2 "
            "(any case; there is no 0, O, 1, I or L)."
        )
        return pages_of(request).respond(JOIN, JoinForm(problem))
    return RedirectResponse(f"/join/{found}", status_code=303)


@dataclass(frozen=True, slots=True)
class Joining:
    code: str
    question: str
    revealed: bool
    locked: bool = False


def _joining(env: Env, j: Joining, _: object) -> Context:
    p = CLASS_PRESET_BY_ID[j.question]
    title = p.title if j.revealed else p.shown_title
    return Context({"j": j, "preset": p, "title": title}, 200, (NO_STORE,))


JOINING = Page("class/joining.html", _joining, classroom=True)


@router.get("/join/{code}")
def join_code(request: Request, code: str) -> Response:
    """The QR's target: joins this browser to the class (class.js) and opens the question."""
    info = class_of(request, code)
    if isinstance(info, Response):
        return info
    return pages_of(request).respond(
        JOINING, Joining(info.code, info.question, bool(info.revealed), bool(info.locked))
    )
