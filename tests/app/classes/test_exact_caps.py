"""The caps hold exactly under concurrent writers on PostgreSQL: the classes opened per window
and the learners per question. Read committed lets two transactions both count below a cap
and both insert; each check here runs under a lock taken inside its transaction, so the count
a writer sees includes every writer before it. (SQLite serialises writers whole: BEGIN
IMMEDIATE.) Each race runs several rounds through four rooms, as four worker processes would,
each with its own connection pool; without the locks the classes overshot in every round
(67 against 60 had been seen in production) and the learners in most."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest

from app.classes.database import Database, postgres_dialect
from app.classes.errors import ClassFull, RateLimited
from app.classes.limits import Limits
from app.classes.records import QUESTIONS
from app.classes.service import ClassRoom
from tests.app.classes.conftest import Cluster
from tests.app.classes.helpers import Clock

BASE = "http://station.test"
THREADS = 16
WORKERS = 4  # rooms, each its own pool of eight writers: 32 connections in all


@pytest.fixture
def rooms(postgres: Cluster) -> Iterator[Callable[[Limits, str], list[ClassRoom]]]:
    postgres.admin("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
    made: list[ClassRoom] = []

    def make(limits: Limits, key: str = "") -> list[ClassRoom]:
        clock = Clock()
        group = [
            ClassRoom(
                lambda: Database(postgres_dialect(postgres.url)),
                retention=timedelta(hours=24),
                clock=clock,
                limits=limits,
                instructor_key=key,
            )
            for _ in range(WORKERS)
        ]
        for room in group:
            room.store()  # migrated and connected before the race starts
        made.extend(group)
        return group

    yield make
    for room in made:
        room.close()


def race(n: int, attempt: Callable[[int], object]) -> tuple[int, int]:
    """`n` attempts from THREADS threads released together: (accepted, refused)."""
    barrier = threading.Barrier(THREADS)
    lock = threading.Lock()
    counts = [0, 0]

    def worker(t: int) -> None:
        barrier.wait()
        for i in range(t, n, THREADS):
            try:
                attempt(i)
                ok = 0
            except (RateLimited, ClassFull):
                ok = 1
            with lock:
                counts[ok] += 1

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(worker, range(THREADS)))
    return counts[0], counts[1]


@pytest.mark.parametrize("round_", range(3))
@pytest.mark.parametrize("key", ["", "the instructor key"], ids=["per-address", "server"])
def test_racing_openers_open_exactly_the_cap(
    rooms: Callable[[Limits, str], list[ClassRoom]], key: str, round_: int
) -> None:
    group = rooms(Limits(opens=60, open_window=600), key)
    accepted, refused = race(80, lambda i: group[i % WORKERS].open(BASE, "10.0.0.9", key or None))
    assert (accepted, refused) == (60, 20)
    with group[0].store().db.read() as tx:
        assert tx.one("SELECT COUNT(*) FROM classes") == (60,)


@pytest.mark.parametrize("round_", range(3))
def test_racing_learners_fill_a_question_exactly_to_its_cap(
    rooms: Callable[[Limits, str], list[ClassRoom]], round_: int
) -> None:
    group = rooms(Limits(learners=50), "")
    c = group[0].open(BASE, "10.0.0.1")

    def send(i: int) -> None:
        group[i % WORKERS].submit(
            c.code, f"learner-{i:04d}-racing-for-a-seat", QUESTIONS[0], "raise_match"
        )

    accepted, refused = race(120, send)
    assert (accepted, refused) == (50, 70)
    assert group[0].tally(c.code).answered == 50
    # Full, a learner already in still changes their answer.
    taken = group[0].learners(c.code, c.host_key, 100).listed[0].learner
    assert group[1].submit(c.code, taken, QUESTIONS[0], "lengthen_k").answered == 50
