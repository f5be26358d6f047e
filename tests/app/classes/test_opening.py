"""Who may open a class, and how many: the instructor key (`STATION08_INSTRUCTOR_KEY`) on the
JSON API and the opening page, and the opening limit counted per client address when no key
is set; plus the schema's upgrade from each earlier version, keeping what it holds."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.classes.database import Database, sqlite_dialect
from app.classes.limits import Limits
from app.classes.migrations import MIGRATIONS, applied, migrate
from app.classes.records import QUESTIONS
from app.classes.refusals import InstructorKeyMissing, InstructorKeyWrong
from app.classes.service import ClassRoom
from app.config import AppSettings
from app.main import create_app
from tests.app.classes.conftest import Backend
from tests.app.classes.helpers import SAME, Clock

BASE = "http://station.test"
KEY = "correct horse battery staple"
JSON = {"Content-Type": "application/json"}


def rows(db: Database, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with db.read() as tx:
        return tx.rows(sql, params)


def count(room: ClassRoom, table: str) -> int:
    return int(rows(room.store().db, f"SELECT COUNT(*) FROM {table}")[0][0])


def app_with(
    tmp_path: Path, *, key: str = "", limits: Limits | None = None, address: str = "10.0.0.1"
) -> TestClient:
    settings = AppSettings(data_dir=str(tmp_path), instructor_key=key)
    app = create_app(settings=settings)
    path = tmp_path / "classes.sqlite3"
    app.state.classes = ClassRoom(
        lambda: Database(sqlite_dialect(path)),
        retention=timedelta(hours=24),
        clock=Clock(),
        limits=limits,
        instructor_key=settings.instructor_key,
    )
    return TestClient(app, client=(address, 50000))


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[TestClient]:
    with app_with(tmp_path, key=KEY, limits=Limits(opens=1)) as c:
        yield c


def room_of(c: TestClient) -> ClassRoom:
    room: ClassRoom = c.app.state.classes  # type: ignore[attr-defined]
    return room


# --- the instructor key ------------------------------------------------------------------------


def test_the_setting_is_read_from_the_environment_and_kept_out_of_repr(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STATION08_INSTRUCTOR_KEY", KEY)
    settings = AppSettings()
    assert settings.instructor_key == KEY and KEY not in repr(settings)
    assert ClassRoom.from_settings(settings).needs_key
    assert not ClassRoom.from_settings(AppSettings(instructor_key="")).needs_key


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"Authorization": "Bearer "}, 401),
        ({"Authorization": f"Basic {KEY}"}, 401),
        ({"Authorization": "Bearer not-the-key"}, 403),
        ({"Authorization": f"Bearer {KEY}x"}, 403),
        ({"Authorization": f"Bearer {KEY[:-1]}"}, 403),
        ({"Authorization": "Bearer cl\xc3\xa9".encode("latin-1")}, 403),
    ],
)
def test_the_api_refuses_a_missing_or_wrong_instructor_key_and_uses_up_nothing(
    keyed: TestClient, headers: dict[str, Any], status: int
) -> None:
    r = keyed.post("/api/classes", json={}, headers=headers)
    assert r.status_code == status, r.text
    assert "instructor key" in r.json()["detail"] and KEY not in r.text
    if status == 401:
        assert r.headers["www-authenticate"] == "Bearer"
    else:
        assert "www-authenticate" not in r.headers
    room = room_of(keyed)
    assert count(room, "classes") == 0 and count(room, "openings") == 0
    # The one opening the window allows (Limits(opens=1)) is still there, and is the last.
    opened = keyed.post("/api/classes", json={}, headers={"Authorization": f"Bearer {KEY}"})
    assert opened.status_code == 201, opened.text
    again = keyed.post("/api/classes", json={}, headers={"Authorization": f"Bearer {KEY}"})
    assert again.status_code == 429 and "on this server" in again.json()["detail"]


def test_the_service_checks_the_key_before_it_touches_the_database(tmp_path: Path) -> None:
    opened: list[int] = []

    def connect() -> Database:
        opened.append(1)
        return Database(sqlite_dialect(tmp_path / "c.sqlite3"))

    room = ClassRoom(connect, retention=timedelta(hours=1), instructor_key=KEY)
    with pytest.raises(InstructorKeyMissing):
        room.open(BASE, "10.0.0.1", None)
    with pytest.raises(InstructorKeyWrong):
        room.open(BASE, "10.0.0.1", "nope")
    assert opened == []
    assert room.open(BASE, "10.0.0.1", KEY).code
    room.close()


def test_the_opening_page_asks_for_the_key_and_says_what_was_wrong(keyed: TestClient) -> None:
    page = keyed.get("/class")
    assert page.status_code == 200
    assert 'type="password"' in page.text and 'data-testid="instructor-key"' in page.text
    missing = keyed.post("/class", data={}, headers=SAME, follow_redirects=False)
    assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
    assert 'data-testid="open-problem"' in missing.text and "takes the instructor key" in (
        missing.text
    )
    wrong = keyed.post("/class", data={"key": "guess"}, headers=SAME, follow_redirects=False)
    assert wrong.status_code == 403 and "not this server&#39;s instructor key" in wrong.text
    assert 'aria-invalid="true"' in wrong.text and "guess" not in wrong.text
    assert count(room_of(keyed), "classes") == 0
    right = keyed.post("/class", data={"key": KEY}, headers=SAME, follow_redirects=False)
    assert right.status_code == 303 and right.headers["location"].startswith("/class/")
    # Past the limit: the refusal page, not a 500.
    full = keyed.post("/class", data={"key": KEY}, headers=SAME, follow_redirects=False)
    assert full.status_code == 429 and 'data-testid="class-refused"' in full.text


def test_without_a_key_the_page_has_no_key_field_and_opens_as_before(tmp_path: Path) -> None:
    with app_with(tmp_path) as c:
        page = c.get("/class")
        assert 'type="password"' not in page.text
        r = c.post("/class", headers=SAME, follow_redirects=False)
        assert r.status_code == 303
        api = c.post("/api/classes", json={}, headers={"Authorization": "Bearer anything"})
        assert api.status_code == 201  # a key sent where none is set is ignored


# --- the opening limit per client address -----------------------------------------------------


def test_without_a_key_the_opening_limit_is_counted_per_client_address(tmp_path: Path) -> None:
    """A learner who uses up their own address's openings leaves the instructor's alone."""
    limits = Limits(opens=2, open_window=600)
    with app_with(tmp_path, limits=limits, address="10.0.0.7") as learner:
        for _ in range(2):
            assert learner.post("/api/classes", json={}).status_code == 201
        refused = learner.post("/api/classes", json={})
        assert refused.status_code == 429 and "from this address" in refused.json()["detail"]
        assert refused.headers["retry-after"] == "600"
        page = learner.post("/class", headers=SAME, follow_redirects=False)
        assert page.status_code == 429 and "from this address" in page.text
        instructor = TestClient(learner.app, client=("10.0.0.1", 50000))
        assert instructor.post("/class", headers=SAME, follow_redirects=False).status_code == 303
        assert instructor.post("/api/classes", json={}).status_code == 201
        assert instructor.post("/api/classes", json={}).status_code == 429
        room = room_of(learner)
        # Addresses are kept only as their SHA-256, one row per class opened.
        kept = rows(room.store().db, "SELECT opener FROM openings")
        assert len(kept) == 4 and not any("10.0.0." in str(r[0]) for r in kept)


def test_openings_per_address_on_both_backends(store: Backend, clock: Clock) -> None:
    room = store.room(clock, Limits(opens=2, open_window=60))
    room.open(BASE, "10.0.0.1")
    room.open(BASE, "10.0.0.1")
    with pytest.raises(Exception, match="from this address"):
        room.open(BASE, "10.0.0.1")
    assert room.open(BASE, "10.0.0.2").code  # another address has its own two
    clock.advance(61)
    assert room.open(BASE, "10.0.0.1").code
    # A purge drops the openings that no longer count, and keeps the classes.
    room.store().purge(int(clock()), room.limits.open_window)
    assert count(room, "openings") == 1 and count(room, "classes") == 4


def test_with_a_key_the_opening_limit_is_the_server_s(store: Backend, clock: Clock) -> None:
    room = ClassRoom(
        store.database,
        retention=timedelta(hours=24),
        clock=clock,
        limits=Limits(opens=2, open_window=60),
        instructor_key=KEY,
    )
    store.rooms.append(room)
    room.open(BASE, "10.0.0.1", KEY)
    room.open(BASE, "10.0.0.2", KEY)
    with pytest.raises(Exception, match="on this server"):
        room.open(BASE, "10.0.0.3", KEY)
    assert count(room, "openings") == 0  # no address is kept for a key holder


# --- the schema's upgrades --------------------------------------------------------------------


def migrate_to(db: Database, version: int) -> None:
    """The schema as it stood at `version`: the migrations up to it, as `migrate` applies
    them."""
    migrate_up_to = MIGRATIONS[:version]
    with db.write() as tx:
        tx.rows(
            "CREATE TABLE IF NOT EXISTS schema_version"
            " (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)"
        )
        for number, statements in enumerate(migrate_up_to, start=1):
            tx.rows("INSERT INTO schema_version (version, applied_at) VALUES (?, 1)", (number,))
            for statement in statements:
                tx.rows(statement)


@pytest.mark.parametrize("previous", range(1, len(MIGRATIONS)))
def test_an_earlier_schema_upgrades_keeping_its_classes(store: Backend, previous: int) -> None:
    db = store.database()
    try:
        migrate_to(db, previous)
        with db.write() as tx:
            tx.rows(
                "INSERT INTO classes (code, host_hash, question, created_at, expires_at)"
                " VALUES ('ABC234', 'h', ?, 1, 4000000000)",
                (QUESTIONS[0],),
            )
            tx.rows(
                "INSERT INTO predictions (code, question, learner, intervention, faster, kept)"
                " VALUES ('ABC234', ?, 'learner-0001-abcdefgh', 'raise_match', 1, NULL)",
                (QUESTIONS[0],),
            )
            tx.rows("INSERT INTO revealed (code, question) VALUES ('ABC234', ?)", (QUESTIONS[0],))
        assert migrate(db) == list(range(previous + 1, len(MIGRATIONS) + 1))
        assert applied(db) == list(range(1, len(MIGRATIONS) + 1))
    finally:
        db.close()
    room = store.room()
    info = room.find("ABC234")
    assert info is not None and info.answered == 1 and info.revealed
    tally = room.tally("ABC234")
    assert tally.interventions["raise_match"] == 1 and tally.faster.yes == 1
    assert room.open(BASE, "10.0.0.1").code  # and the upgraded schema takes a new class
