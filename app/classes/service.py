"""A live class: the one object the pages and the JSON API ask, `app.state.classes`.

`ClassRoom` is made by `create_app` and opens its database on first use (the first class
opened or looked up), so an app that never holds a class touches no file and no server. All
class state lives in the database (SQLite under `settings.data_dir`, or PostgreSQL at
`settings.database_url`), so any number of worker processes, or servers behind a load
balancer, share every class; the only thing a process keeps is when it last purged.

Interface (synchronous: call it from `def` routes, which run in the thread pool; every method
is safe from any thread and any process):

    open(base_url, opener="", key=None) -> Opened(code, host_key, join_url, expires_at; host_url)
    find(code) -> ClassInfo | None        # None: unknown, expired or not a code
    is_host(code, host_key) -> bool
    submit(code, learner, question, intervention, faster, kept) -> ClassInfo
    tally(code, question=None) -> Tally   # None: the class's current question
    set_question(code, host_key, preset) -> ClassInfo
    next_question(code, host_key) -> ClassInfo   # the next preset; stays on the last one
    reveal(code, host_key) -> ClassInfo
    lock(code, host_key) / unlock(code, host_key) -> ClassInfo   # new learners refused / let in
    hide_tally(code, host_key, hidden=True) -> ClassInfo   # the tally hidden till the reveal
    remove_learner(code, host_key, learner) -> (ClassInfo, predictions deleted)
    remove_short(code, host_key, short) -> (ClassInfo, predictions deleted)  # by short id
    learners(code, host_key, most) -> Learners   # who is in the class, for the dashboard
    close()

Each refusal is an exception from `app.classes.errors` or `app.classes.refusals`, carrying
a message safe to show: `UnknownClass` (404), `NotHost` (403), `AlreadyRevealed` and
`QuestionMoved` (409), `ClassFull` (409), `UnknownQuestion` (422), `RateLimited(retry_after)`
(429), `StorageUnavailable` (503), `InstructorKeyMissing` (401), `InstructorKeyWrong`
(403), `ClassLocked` (423: a learner new to a locked class), `UnknownLearner` (404) and
`AmbiguousLearner` (409).

A learner is in a class once they have a prediction in it, on any question; a locked class
refuses everyone else, and a removed learner (their predictions deleted) is new again.

A learner id, an intervention or a question that is not valid is a `ValueError` naming the
field (the API's models refuse them before the service is asked).

`next_question` stops at the last preset (`ClassInfo.has_next` is then False) rather than
wrapping round: a class that clicks once too often stays where it is instead of being sent
back to the first question, whose answer it has already seen.

Opening a class: with an instructor key configured (`STATION08_INSTRUCTOR_KEY`), `open`
takes only that key (compared in constant time) and counts the opening limit for the server
as a whole, since only the key's holders open classes; a refused key touches no table.
Without one, anyone who reaches the server may open a class, and the limit is counted per
`opener`, the client's address (kept as its SHA-256), so a learner opening classes from their
phone uses up their own openings, not the instructor's.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from app.classes.codes import key_hash, key_matches, new_code, new_host_key, normal_code
from app.classes.database import Database, postgres_dialect, sqlite_dialect
from app.classes.errors import NotHost, UnknownClass, UnknownQuestion
from app.classes.limits import Limits
from app.classes.migrations import migrate
from app.classes.records import (
    PREDICTABLE,
    QUESTIONS,
    TITLES,
    ClassInfo,
    Learners,
    Opened,
    Tally,
    tally_of,
)
from app.classes.refusals import (
    AmbiguousLearner,
    InstructorKeyMissing,
    InstructorKeyWrong,
    UnknownLearner,
)
from app.classes.store import ClassStore, Stored
from app.config import AppSettings, data_dir

LEARNER = re.compile(r"[A-Za-z0-9_-]{16,64}")
SHORT_ID = re.compile(r"[A-Za-z0-9_-]{8}")  # the dashboard's: a learner id's first eight
PURGE_EVERY_S = 600  # how often a busy server deletes expired classes, besides on start
SQLITE_FILE = "classes.sqlite3"

Clock = Callable[[], float]


def open_database(settings: AppSettings) -> Database:
    """The settings' database: PostgreSQL when a URL is set, else SQLite under data_dir."""
    if settings.database_url:
        return Database(postgres_dialect(settings.database_url))
    return Database(sqlite_dialect(data_dir(settings) / SQLITE_FILE))


class ClassRoom:
    def __init__(
        self,
        connect: Callable[[], Database],
        *,
        retention: timedelta,
        clock: Clock = time.time,
        limits: Limits | None = None,
        purge_every: float = PURGE_EVERY_S,
        instructor_key: str = "",
    ) -> None:
        self._connect = connect
        self._instructor_key = instructor_key.encode()
        self.retention = retention
        self.clock = clock
        self.limits = limits or Limits()
        self._store: ClassStore | None = None
        self._lock = threading.Lock()
        self.purge_every = purge_every
        self._purged_at = -float("inf")

    @classmethod
    def from_settings(cls, settings: AppSettings) -> ClassRoom:
        return cls(
            lambda: open_database(settings),
            retention=timedelta(hours=settings.class_retention_hours),
            instructor_key=settings.instructor_key,
        )

    @property
    def needs_key(self) -> bool:
        """Opening a class takes the instructor key (one is configured)."""
        return bool(self._instructor_key)

    # --- the store, opened on first use ----------------------------------------------------

    def store(self) -> ClassStore:
        """The open store: on first use the schema is migrated and expired classes purged;
        afterwards a purge runs at most every `purge_every` seconds, on whichever call.

        The first connect happens outside the lock: a thread that finds no store opens one
        (the database's breaker refuses at once while a connect has just failed), and the
        first to finish keeps it, so no request waits on the lock behind another's connect.
        Migrating is safe to run twice at once (app/classes/migrations.py)."""
        now = self.clock()
        with self._lock:
            store = self._store
        if store is None:
            db = self._connect()
            try:
                migrate(db)
            except BaseException:
                db.close()
                raise
            opened = ClassStore(db)
            with self._lock:
                if self._store is None:
                    self._store = opened
                store = self._store
            if store is not opened:
                db.close()  # another thread opened the store first
        with self._lock:
            purge = now - self._purged_at >= self.purge_every
            if purge:
                self._purged_at = now
        if purge:
            store.purge(int(now), self.limits.open_window)
        return store

    def close(self) -> None:
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            store.db.close()

    # --- learners --------------------------------------------------------------------------

    def find(self, code: str) -> ClassInfo | None:
        shaped = normal_code(code)
        if shaped is None:
            return None
        stored = self.store().find(shaped, int(self.clock()))
        return None if stored is None else _info(shaped, stored)

    def submit(
        self,
        code: str,
        learner: str,
        question: str,
        intervention: str,
        faster: bool | None = None,
        kept: bool | None = None,
    ) -> ClassInfo:
        shaped = _code(code)
        if not LEARNER.fullmatch(learner):
            raise ValueError("learner must be 16-64 letters, digits, '-' or '_'")
        if intervention not in PREDICTABLE:
            raise ValueError(f"intervention must be one of {', '.join(PREDICTABLE)}")
        _question(question)
        now = self.clock()
        store = self.store()
        store.submit(shaped, learner, question, intervention, faster, kept, now, self.limits)
        return self._info(store, shaped, int(now))

    def tally(self, code: str, question: str | None = None) -> Tally:
        shaped = _code(code)
        if question is not None:
            _question(question)
        found = self.store().tally(shaped, question, int(self.clock()))
        if found is None:
            raise UnknownClass(shaped)
        return tally_of(shaped, *found)

    # --- the instructor --------------------------------------------------------------------

    def open(self, base_url: str, opener: str = "", key: str | None = None) -> Opened:
        """A new class on the first preset; `base_url` is where learners reach this server,
        `opener` the client's address and `key` the instructor key it sent (if any)."""
        counted = self._opener(opener, key)
        now = int(self.clock())
        expires = now + int(self.retention.total_seconds())
        host_key = new_host_key()
        store = self.store()
        for _ in range(8):  # a taken code is drawn again; eight in a row would be a bug
            code = new_code()
            try:
                store.create(
                    code, key_hash(host_key), QUESTIONS[0], now, expires, self.limits, counted
                )
            except store.db.dialect.integrity:
                continue
            return Opened(code, host_key, f"{base_url.rstrip('/')}/join/{code}", _time(expires))
        raise RuntimeError("eight class codes in a row were taken")

    def _opener(self, opener: str, key: str | None) -> str | None:
        """Whom the opening limit counts: None (the server as a whole) once the instructor
        key is checked, else the SHA-256 of the client's address."""
        if self._instructor_key:
            if not key:
                raise InstructorKeyMissing()
            if not hmac.compare_digest(key.encode(), self._instructor_key):
                raise InstructorKeyWrong()
            return None
        return hashlib.sha256(opener.encode()).hexdigest()

    def is_host(self, code: str, host_key: str) -> bool:
        shaped = normal_code(code)
        if shaped is None or not host_key:
            return False
        stored = self.store().host_hash(shaped, int(self.clock()))
        return stored is not None and key_matches(host_key, stored)

    def set_question(self, code: str, host_key: str, preset: str) -> ClassInfo:
        shaped = self._host(code, host_key)
        _question(preset)
        now = int(self.clock())
        return _info(shaped, self.store().set_question(shaped, preset, now))

    def next_question(self, code: str, host_key: str) -> ClassInfo:
        shaped = self._host(code, host_key)
        info = self._info(self.store(), shaped, int(self.clock()))
        if not info.has_next:
            return info
        return self.set_question(shaped, host_key, QUESTIONS[QUESTIONS.index(info.question) + 1])

    def reveal(self, code: str, host_key: str) -> ClassInfo:
        shaped = self._host(code, host_key)
        return _info(shaped, self.store().reveal(shaped, int(self.clock())))

    def lock(self, code: str, host_key: str) -> ClassInfo:
        """Close the class to new learners; those in it may still change their answers."""
        shaped = self._host(code, host_key)
        return _info(shaped, self.store().set_locked(shaped, True, int(self.clock())))

    def unlock(self, code: str, host_key: str) -> ClassInfo:
        shaped = self._host(code, host_key)
        return _info(shaped, self.store().set_locked(shaped, False, int(self.clock())))

    def hide_tally(self, code: str, host_key: str, hidden: bool = True) -> ClassInfo:
        """Hide the live tally on the dashboard until the reveal (or show it again)."""
        shaped = self._host(code, host_key)
        return _info(shaped, self.store().set_tally_hidden(shaped, hidden, int(self.clock())))

    def remove_learner(self, code: str, host_key: str, learner: str) -> tuple[ClassInfo, int]:
        """Delete a learner's predictions in the class: (the class, how many were deleted)."""
        shaped = self._host(code, host_key)
        if not LEARNER.fullmatch(learner):
            raise UnknownLearner(shaped)
        stored, gone = self.store().remove(shaped, learner, int(self.clock()))
        return _info(shaped, stored), gone

    def remove_short(self, code: str, host_key: str, short: str) -> tuple[ClassInfo, int]:
        """Remove the one learner whose id starts with `short`: the dashboard names learners
        by short id only, so the page never carries an id that could send as them."""
        shaped = self._host(code, host_key)
        if not SHORT_ID.fullmatch(short):
            raise UnknownLearner(shaped)
        found = self.store().with_short_id(shaped, short)
        if not found:
            raise UnknownLearner(shaped)
        if len(found) > 1:
            raise AmbiguousLearner(shaped, short)
        return self.remove_learner(shaped, host_key, found[0])

    def learners(self, code: str, host_key: str, most: int) -> Learners:
        """The class's learners for its instructor: those who answered the current question
        first, at most `most`, and how many there are in all."""
        shaped = self._host(code, host_key)
        found = self.store().learners(shaped, int(self.clock()), most)
        if found is None:
            raise UnknownClass(shaped)
        return found

    # --- helpers ---------------------------------------------------------------------------

    def _host(self, code: str, host_key: str) -> str:
        """The class's code when `host_key` is its key: UnknownClass (first) or NotHost."""
        shaped = _code(code)
        stored = self.store().host_hash(shaped, int(self.clock()))
        if stored is None:
            raise UnknownClass(shaped)
        if not host_key or not key_matches(host_key, stored):
            raise NotHost()
        return shaped

    def _info(self, store: ClassStore, code: str, now: int) -> ClassInfo:
        stored = store.find(code, now)
        if stored is None:
            raise UnknownClass(code)
        return _info(code, stored)


def _code(code: str) -> str:
    shaped = normal_code(code)
    if shaped is None:
        raise UnknownClass("")
    return shaped


def _question(question: str) -> None:
    if question not in TITLES:
        raise UnknownQuestion()


def _time(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _info(code: str, stored: Stored) -> ClassInfo:
    return ClassInfo(
        code=code,
        question=stored.question,
        question_title=TITLES[stored.question],
        revealed=stored.revealed,
        expires_at=_time(stored.expires_at),
        answered=stored.answered,
        locked=stored.locked,
        tally_hidden=stored.tally_hidden,
    )
