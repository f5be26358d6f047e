"""The class store on SQLite and PostgreSQL alike (the `store` fixture runs each test on
both): migrations from an empty database, concurrent submissions, a restart, expiry, the
reveal, the limits and what is kept."""

from __future__ import annotations

import hashlib
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.classes.database import Database
from app.classes.errors import (
    AlreadyRevealed,
    ClassFull,
    NotHost,
    QuestionMoved,
    RateLimited,
    UnknownClass,
    UnknownQuestion,
)
from app.classes.limits import Limits
from app.classes.migrations import MIGRATIONS, applied, migrate
from app.classes.records import PREDICTABLE, QUESTIONS
from app.classes.service import ClassRoom
from tests.app.classes.conftest import Backend
from tests.app.classes.helpers import Clock

BASE = "http://station.test"
TABLES = ("classes", "revealed", "predictions", "learner_windows", "openings", "schema_version")


def learner(i: int) -> str:
    return f"learner-{i:04d}-abcdefgh"


def rows(db: Database, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with db.read() as tx:
        return tx.rows(sql, params)


def columns(db: Database, table: str) -> set[str]:
    cursor_rows = rows(db, f"SELECT * FROM {table} WHERE 1 = 0")
    assert cursor_rows == []
    conn = db._readers.borrow()
    try:
        cursor = conn.execute(f"SELECT * FROM {table} WHERE 1 = 0")
        return {d[0] for d in cursor.description}
    finally:
        db._readers.give_back(conn, True)


# --- migrations ------------------------------------------------------------------------------


def test_migrations_build_the_schema_from_an_empty_database_once(store: Backend) -> None:
    db = store.database()
    try:
        assert migrate(db) == list(range(1, len(MIGRATIONS) + 1))
        every = list(range(1, len(MIGRATIONS) + 1))
        assert applied(db) == every
        for table in TABLES:
            assert rows(db, f"SELECT COUNT(*) FROM {table}")[0][0] == (
                len(every) if table == "schema_version" else 0
            )
        assert migrate(db) == []  # up to date: a no-op
        assert applied(db) == every
        recorded = rows(db, "SELECT version, applied_at FROM schema_version")
        assert len(recorded) == len(every) and all(r[1] > 0 for r in recorded)
    finally:
        db.close()


# uvicorn's workers open one new database at once. Both races this met were intermittent
# (SQLite's switch to WAL answered "locked", PostgreSQL's CREATE IF NOT EXISTS "already
# exists", each in about half the runs), so the race is run in several rounds of eight.
@pytest.mark.parametrize("round_", range(6))
def test_workers_migrating_at_once_apply_each_migration_once(store: Backend, round_: int) -> None:
    dbs = [store.database() for _ in range(8)]
    barrier = threading.Barrier(len(dbs))

    def start(db: Database) -> list[int]:
        barrier.wait()
        return migrate(db)

    try:
        with ThreadPoolExecutor(len(dbs)) as pool:
            done = list(pool.map(start, dbs))
        every = list(range(1, len(MIGRATIONS) + 1))
        assert sorted(v for d in done for v in d) == every  # each applied by one of them
        assert applied(dbs[0]) == every
    finally:
        for db in dbs:
            db.close()


def test_only_what_the_tally_needs_is_kept(store: Backend) -> None:
    room = store.room()
    opened = room.open(BASE)
    room.submit(opened.code, learner(1), QUESTIONS[0], "raise_match", True, None)
    db = room.store().db
    assert columns(db, "classes") == {
        "code", "host_hash", "question", "created_at", "expires_at", "locked", "tally_hidden",
    }  # fmt: skip
    assert columns(db, "predictions") == {
        "code", "question", "learner", "intervention", "faster", "kept",
    }  # fmt: skip
    assert columns(db, "revealed") == {"code", "question"}
    assert columns(db, "learner_windows") == {"code", "learner", "window_start", "n"}
    assert columns(db, "openings") == {"code", "opener", "opened_at"}
    # The host key itself is nowhere: only its SHA-256.
    (stored,) = rows(db, "SELECT host_hash FROM classes")
    assert stored[0] == hashlib.sha256(opened.host_key.encode()).hexdigest()
    assert opened.host_key not in repr(rows(db, "SELECT * FROM classes"))


# --- concurrent submissions ------------------------------------------------------------------


def test_200_learners_at_once_are_each_counted_once(store: Backend) -> None:
    room = store.room()
    opened = room.open(BASE)
    question = QUESTIONS[0]
    rng = random.Random(14)
    first = {
        learner(i): (
            rng.choice(PREDICTABLE),
            rng.choice([True, False, None]),
            rng.choice([True, False, None]),
        )
        for i in range(200)
    }
    # Then 60 of them change their mind and 40 send the same prediction again, all at once.
    changed = {
        who: (rng.choice(PREDICTABLE), rng.choice([True, False, None]), None)
        for who in rng.sample(sorted(first), 60)
    }
    repeated = rng.sample(sorted(set(first) - set(changed)), 40)
    final = {**first, **changed}

    def send_all(batch: list[tuple[str, tuple[str, bool | None, bool | None]]]) -> None:
        barrier = threading.Barrier(len(batch))

        def send(item: tuple[str, tuple[str, bool | None, bool | None]]) -> None:
            who, (intervention, faster, kept) = item
            barrier.wait()
            room.submit(opened.code, who, question, intervention, faster, kept)

        threads = [threading.Thread(target=send, args=(item,)) for item in batch]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    send_all(list(first.items()))
    send_all([*changed.items(), *((who, first[who]) for who in repeated)])

    tally = room.tally(opened.code)
    assert tally.answered == 200
    for i in PREDICTABLE:
        mine = [v for v in final.values() if v[0] == i]
        assert tally.interventions[i] == len(mine)
        split = tally.by_intervention[i]
        assert split.faster.yes == sum(v[1] is True for v in mine)
        assert split.faster.no == sum(v[1] is False for v in mine)
        assert split.kept.unsaid == sum(v[2] is None for v in mine)
    assert tally.faster.yes == sum(v[1] is True for v in final.values())
    assert tally.kept.no == sum(v[2] is False for v in final.values())
    assert (tally.faster.yes + tally.faster.no + tally.faster.unsaid) == 200
    assert room.find(opened.code).answered == 200  # type: ignore[union-attr]


# --- restart, expiry -------------------------------------------------------------------------


def test_a_restart_keeps_every_class_and_its_tally(store: Backend, clock: Clock) -> None:
    room = store.room(clock)
    a, b = room.open(BASE), room.open(BASE)
    for i in range(5):
        room.submit(a.code, learner(i), QUESTIONS[0], PREDICTABLE[i], i % 2 == 0, None)
    room.reveal(a.code, a.host_key)
    room.set_question(b.code, b.host_key, QUESTIONS[3])
    before = (room.tally(a.code), room.find(a.code), room.find(b.code))
    room.close()

    again = store.room(clock)  # a new store on the same database
    assert (again.tally(a.code), again.find(a.code), again.find(b.code)) == before
    assert again.is_host(a.code, a.host_key) and not again.is_host(a.code, b.host_key)
    with pytest.raises(AlreadyRevealed):
        again.submit(a.code, learner(9), QUESTIONS[0], "raise_match")


def test_an_expired_class_is_unknown_at_once_and_purged_later(store: Backend, clock: Clock) -> None:
    room = store.room(clock, hours=1, purge_every=10 * 3600)
    old = room.open(BASE)
    room.submit(old.code, learner(1), QUESTIONS[0], "lengthen_k", True, True)
    room.reveal(old.code, old.host_key)
    clock.advance(30 * 60)
    young = room.open(BASE)
    clock.advance(30 * 60)  # old has reached its expiry; young is half-way
    assert room.find(old.code) is None
    for call in (
        lambda: room.tally(old.code),
        lambda: room.submit(old.code, learner(2), QUESTIONS[0], "raise_match"),
        lambda: room.reveal(old.code, old.host_key),
        lambda: room.set_question(old.code, old.host_key, QUESTIONS[1]),
    ):
        with pytest.raises(UnknownClass, match=old.code):
            call()
    assert not room.is_host(old.code, old.host_key)
    db = room.store().db
    assert rows(db, "SELECT COUNT(*) FROM predictions WHERE code = ?", (old.code,))[0][0] == 1

    removed = room.store().purge(int(clock()), room.limits.open_window)
    assert removed == 1
    for table in ("classes", "predictions", "revealed", "learner_windows"):
        assert rows(db, f"SELECT COUNT(*) FROM {table} WHERE code = ?", (old.code,))[0][0] == 0
    assert room.find(young.code) is not None

    # A new store purges on its first use (a server starting again) ...
    clock.advance(30 * 60)
    fresh = store.room(clock)
    assert fresh.find(young.code) is None
    assert rows(fresh.store().db, "SELECT COUNT(*) FROM classes")[0][0] == 0
    # ... and again every `purge_every` seconds of use.
    busy = store.room(clock, hours=1)
    late = busy.open(BASE)
    clock.advance(3599)
    busy.find(late.code)  # purges (nothing has expired)
    clock.advance(1)  # late has expired, one second after that purge
    assert busy.find(late.code) is None
    assert rows(busy.store().db, "SELECT COUNT(*) FROM classes")[0][0] == 1
    clock.advance(599)
    busy.find(late.code)
    assert rows(busy.store().db, "SELECT COUNT(*) FROM classes")[0][0] == 0


# --- the question, the reveal, the key ---------------------------------------------------------


def test_predictions_can_change_until_the_reveal(store: Backend) -> None:
    room = store.room()
    c = room.open(BASE)
    who = learner(1)
    room.submit(c.code, who, QUESTIONS[0], "raise_match", True, True)
    room.submit(c.code, who, QUESTIONS[0], "skip_repair", False, None)
    t = room.tally(c.code)
    assert t.answered == 1 and t.interventions["skip_repair"] == 1 and t.faster.no == 1
    assert room.reveal(c.code, c.host_key).revealed
    with pytest.raises(AlreadyRevealed):
        room.submit(c.code, who, QUESTIONS[0], "raise_match")
    after = room.tally(c.code)
    assert after.interventions == t.interventions and after.revealed
    room.next_question(c.code, c.host_key)
    with pytest.raises(QuestionMoved):
        room.submit(c.code, who, QUESTIONS[2], "raise_match")
    info = room.submit(c.code, who, QUESTIONS[1], "raise_match")
    assert info.question == QUESTIONS[1] and info.answered == 1 and not info.revealed
    assert room.tally(c.code, QUESTIONS[0]).answered == 1  # the revealed one is kept


def test_instructor_actions_need_the_key_and_change_nothing_without_it(store: Backend) -> None:
    room = store.room()
    c, other = room.open(BASE), room.open(BASE)
    before = room.find(c.code)
    for key in ("", "wrong", other.host_key, c.host_key[:-1]):
        with pytest.raises(NotHost):
            room.reveal(c.code, key)
        with pytest.raises(NotHost):
            room.set_question(c.code, key, QUESTIONS[4])
        with pytest.raises(NotHost):
            room.next_question(c.code, key)
        assert not room.is_host(c.code, key)
    assert room.find(c.code) == before
    assert room.is_host(c.code.lower(), c.host_key)  # a code typed in lower case is the code
    with pytest.raises(UnknownQuestion):
        room.set_question(c.code, c.host_key, "<script>")


def test_next_question_walks_the_presets_and_stops_at_the_last(store: Backend) -> None:
    room = store.room()
    c = room.open(BASE)
    seen = [room.find(c.code).question]  # type: ignore[union-attr]
    for _ in range(len(QUESTIONS) + 2):
        seen.append(room.next_question(c.code, c.host_key).question)
    assert seen[: len(QUESTIONS)] == list(QUESTIONS)
    assert set(seen[len(QUESTIONS) :]) == {QUESTIONS[-1]}
    assert not room.find(c.code).has_next  # type: ignore[union-attr]


# --- limits -----------------------------------------------------------------------------------


def test_a_learner_is_rate_limited_and_a_refused_submission_changes_nothing(
    store: Backend, clock: Clock
) -> None:
    limits = Limits(learner=3, per_class=5, window=10)
    room = store.room(clock, limits)
    c = room.open(BASE)
    clock.now = 1_800_000_002.5  # 7.5 s before its window ends
    for i in PREDICTABLE[:3]:
        room.submit(c.code, learner(1), QUESTIONS[0], i)
    with pytest.raises(RateLimited) as refused:
        room.submit(c.code, learner(1), QUESTIONS[0], "skip_repair")
    assert refused.value.retry_after == 8
    assert room.tally(c.code).interventions[PREDICTABLE[2]] == 1  # the refused one did nothing
    room.submit(c.code, learner(2), QUESTIONS[0], "raise_match")
    room.submit(c.code, learner(3), QUESTIONS[0], "raise_match")
    with pytest.raises(RateLimited, match="class"):  # the class's five in this window are used
        room.submit(c.code, learner(4), QUESTIONS[0], "raise_match")
    clock.advance(8)  # the next window
    room.submit(c.code, learner(1), QUESTIONS[0], "skip_repair")
    room.submit(c.code, learner(4), QUESTIONS[0], "skip_repair")
    assert room.tally(c.code).answered == 4


def test_a_question_holds_a_bounded_number_of_learners(store: Backend) -> None:
    room = store.room(limits=Limits(learners=3))
    c = room.open(BASE)
    for i in range(3):
        room.submit(c.code, learner(i), QUESTIONS[0], "raise_match")
    with pytest.raises(ClassFull):
        room.submit(c.code, learner(3), QUESTIONS[0], "raise_match")
    room.submit(c.code, learner(0), QUESTIONS[0], "lengthen_k")  # a change still goes in
    assert room.tally(c.code).answered == 3


def test_opening_classes_is_bounded_per_server(store: Backend, clock: Clock) -> None:
    room = store.room(clock, Limits(opens=2, open_window=60))
    room.open(BASE)
    room.open(BASE)
    with pytest.raises(RateLimited):
        room.open(BASE)
    clock.advance(61)
    assert room.open(BASE).code


def test_the_service_refuses_what_is_not_valid(store: Backend) -> None:
    room: ClassRoom = store.room()
    c = room.open(BASE)
    for bad in ("short", "x" * 65, "<script>alert(1)</script>", "a b c d e f g h i j"):
        with pytest.raises(ValueError, match="learner"):
            room.submit(c.code, bad, QUESTIONS[0], "raise_match")
    with pytest.raises(ValueError, match="intervention"):
        room.submit(c.code, learner(1), QUESTIONS[0], "skip")
    with pytest.raises(UnknownQuestion):
        room.submit(c.code, learner(1), "nope", "raise_match")
    with pytest.raises(UnknownClass, match="not a class code"):
        room.tally("<b>")
    assert room.find("<b>") is None and room.find("ABCDE0") is None
    assert room.tally(c.code).answered == 0


def test_a_prediction_racing_the_reveal_is_either_in_what_is_revealed_or_refused(
    store: Backend,
) -> None:
    """A race is won or lost by timing, so it is run several times: without the lock on the
    class's row (FOR SHARE on PostgreSQL) one run in three let a prediction in after."""
    room = store.room(limits=Limits(opens=100))
    for _ in range(5):
        _race_the_reveal(room)


def _race_the_reveal(room: ClassRoom) -> None:
    c = room.open(BASE)
    accepted: list[str] = []
    refused: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(101)
    revealed_with: list[int] = []

    def send(i: int) -> None:
        barrier.wait()
        try:
            room.submit(c.code, learner(i), QUESTIONS[0], PREDICTABLE[i % 5])
        except AlreadyRevealed:
            with lock:
                refused.append(learner(i))
            return
        with lock:
            accepted.append(learner(i))

    def reveal() -> None:
        barrier.wait()
        revealed_with.append(room.reveal(c.code, c.host_key).answered)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(100)]
    threads.insert(50, threading.Thread(target=reveal))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(accepted) + len(refused) == 100
    # What the reveal counted is what was accepted: nothing slipped in after it.
    assert revealed_with == [len(accepted)] == [room.tally(c.code).answered]
