"""The class database fails fast and alone: a PostgreSQL that never answers, a data directory
that cannot be made or written, a full disk. Each is `StorageUnavailable` within seconds (a
503 in the API and the pages), named once in the log with its path or server, and nothing
already stored is lost; `/healthz` reports it without connecting.

The silent server is a plain socket that accepts and never speaks (`silent_postgres`); the
real PostgreSQL is the throwaway cluster of conftest.py.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.classes import database
from app.classes.database import (
    CONNECT_TIMEOUT_S,
    STATEMENT_TIMEOUT_MS,
    Connection,
    Database,
    Dialect,
    postgres_dialect,
    sqlite_dialect,
)
from app.classes.errors import StorageFault, StorageUnavailable
from app.classes.migrations import migrate
from app.classes.service import SQLITE_FILE, ClassRoom, open_database
from app.classes.store import ClassStore
from app.config import AppSettings
from app.main import create_app
from tests.app.classes.conftest import Cluster, Silent
from tests.app.classes.helpers import SAME, Clock

ROOT = Path(__file__).resolve().parents[3]
CODE = "K7MPQ2"  # well formed, never opened
FAST = 0.5  # s: what "at once" allows on a loaded test machine


@pytest.fixture(autouse=True)
def fresh_breakers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no database known to this process (a port or a path may be
    reused by a later test)."""
    monkeypatch.setattr(database, "_breakers", {})


def room_on(connect: Callable[[], Database]) -> ClassRoom:
    return ClassRoom(connect, retention=timedelta(hours=1), clock=Clock())


def timed(action: Callable[[], object]) -> tuple[float, BaseException | None]:
    start = time.monotonic()
    try:
        action()
    except BaseException as error:
        return time.monotonic() - start, error
    return time.monotonic() - start, None


def fault_of(error: BaseException | None) -> StorageFault:
    assert isinstance(error, StorageUnavailable), error
    assert isinstance(error.__cause__, StorageFault), error.__cause__
    return error.__cause__


def logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == database.__name__]


# --- a PostgreSQL that accepts and never answers ------------------------------------------


def test_a_silent_server_fails_a_first_use_within_the_connect_timeout(
    silent_postgres: Silent, caplog: pytest.LogCaptureFixture
) -> None:
    room = room_on(lambda: Database(postgres_dialect(silent_postgres.url)))
    elapsed, error = timed(lambda: room.find(CODE))
    fault = fault_of(error)
    # It waited out the connect timeout on the listener (not a refusal from nowhere)...
    assert silent_postgres.accepted
    assert CONNECT_TIMEOUT_S - 0.5 <= elapsed < CONNECT_TIMEOUT_S + 3
    # ...and named the server, without a password, in one log line.
    assert "127.0.0.1" in fault.message and "connection timeout" in fault.message
    lines = logged(caplog)
    assert len(lines) == 1 and fault.message in lines[0]


@pytest.mark.parametrize("through", ["room", "database"])
def test_ten_threads_on_a_silent_server_all_fail_within_seconds(
    silent_postgres: Silent, through: str
) -> None:
    """Ten learners at once: none waits behind another's connect (a lock held across each
    10 s connect made the tenth wait for all of them)."""
    db = Database(postgres_dialect(silent_postgres.url))
    room = room_on(lambda: Database(postgres_dialect(silent_postgres.url)))

    def one(_: int) -> tuple[float, BaseException | None]:
        if through == "room":
            return timed(lambda: room.find(CODE))

        def read() -> None:
            with db.read() as tx:
                tx.rows("SELECT 1")

        return timed(read)

    start = time.monotonic()
    with ThreadPoolExecutor(10) as pool:
        outcomes = list(pool.map(one, range(10)))
    total = time.monotonic() - start
    assert all(isinstance(error, StorageUnavailable) for _, error in outcomes)
    assert total < CONNECT_TIMEOUT_S + 3, total  # serialised, it would be ~10 x 3 s
    assert max(elapsed for elapsed, _ in outcomes) < CONNECT_TIMEOUT_S + 3
    db.close()


def test_after_a_failed_connect_the_next_ones_fail_at_once_without_connecting(
    silent_postgres: Silent, caplog: pytest.LogCaptureFixture
) -> None:
    room = room_on(lambda: Database(postgres_dialect(silent_postgres.url)))
    assert isinstance(timed(lambda: room.find(CODE))[1], StorageUnavailable)
    reached = len(silent_postgres.accepted)
    for _ in range(20):
        elapsed, error = timed(lambda: room.find(CODE))
        assert elapsed < FAST
        assert "connection timeout" in fault_of(error).message  # the last fault, as the cause
    assert len(silent_postgres.accepted) == reached  # not one more connect was tried
    assert len(logged(caplog)) == 1  # and the log says it once


def test_healthz_reports_the_class_store_without_blocking(
    silent_postgres: Silent, tmp_path: Path
) -> None:
    app = create_app(settings=AppSettings(data_dir=str(tmp_path), database_url=silent_postgres.url))
    with TestClient(app) as c:
        assert c.get("/healthz").json() == {"status": "ok", "classes": "not opened"}
        # While a class request waits out its connect, /healthz answers at once, and so does
        # a station page: neither needs the class store.
        slow = threading.Thread(target=lambda: c.get(f"/api/classes/{CODE}"))
        slow.start()
        time.sleep(0.5)
        elapsed, _ = timed(lambda: c.get("/healthz"))
        assert slow.is_alive() and elapsed < FAST
        elapsed, _ = timed(lambda: c.get("/api/trace"))
        page = c.get("/station")
        assert page.status_code == 200 and slow.is_alive()
        slow.join(CONNECT_TIMEOUT_S + 5)
        start = time.monotonic()
        r = c.get("/healthz")
        assert time.monotonic() - start < FAST
        assert r.json() == {"status": "ok", "classes": "unreachable"}
        # A class request now is a 503 at once, for the API and for the pages.
        for path in (f"/api/classes/{CODE}", f"/class/{CODE}"):
            start = time.monotonic()
            answer = c.get(path)
            assert time.monotonic() - start < FAST, path
            assert answer.status_code == 503 and answer.headers["retry-after"], path


def test_healthz_is_ok_once_the_class_store_answers(tmp_path: Path) -> None:
    app = create_app(settings=AppSettings(data_dir=str(tmp_path)))
    with TestClient(app) as c:
        assert c.get("/healthz").json()["classes"] == "not opened"
        assert c.get(f"/api/classes/{CODE}").status_code == 404  # the store answered
        assert c.get("/healthz").json() == {"status": "ok", "classes": "ok"}
        assert (tmp_path / SQLITE_FILE).exists()


def test_openapi_describes_healthz_and_its_class_store_state(tmp_path: Path) -> None:
    with TestClient(create_app(settings=AppSettings(data_dir=str(tmp_path)))) as c:
        schema = c.get("/openapi.json").json()["components"]["schemas"]["Health"]
    assert schema["properties"]["classes"]["enum"] == ["ok", "unreachable", "not opened"]
    assert set(schema["required"]) == {"status", "classes"}


# --- the breaker and the pool, with connects the test controls --------------------------


class Connects:
    """A SQLite dialect's connect, wrapped: counts calls, fails or blocks on demand."""

    def __init__(self, path: Path) -> None:
        self.dialect = sqlite_dialect(path)
        self.calls = 0
        self.fail = False
        self.block_call: int | None = None  # this call (1-based) waits for `release`
        self.release = threading.Event()
        self.blocked = threading.Event()

    def connect(self) -> Connection:
        self.calls += 1
        if self.calls == self.block_call:
            self.blocked.set()
            assert self.release.wait(10)
        if self.fail:
            raise sqlite3.OperationalError("unable to open database file")
        return self.dialect.connect()

    def database(self, readers: int = 4) -> Database:
        return Database(dataclasses.replace(self.dialect, connect=self.connect), readers=readers)


def read(db: Database) -> None:
    with db.read() as tx:
        tx.rows("SELECT 1")


def test_the_breaker_refuses_for_its_back_off_then_lets_one_probe_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "BACKOFF_S", 0.3)
    connects = Connects(tmp_path / "c.sqlite3")
    db = connects.database()
    connects.fail = True
    with pytest.raises(StorageUnavailable):
        read(db)
    for _ in range(5):
        with pytest.raises(StorageUnavailable):
            read(db)
    assert connects.calls == 1 and db.state == "unreachable"
    time.sleep(0.35)
    # Past the back-off, one thread probes; while it connects, the others are still refused.
    connects.fail = False
    connects.block_call = 2
    probe = threading.Thread(target=read, args=(db,))
    probe.start()
    assert connects.blocked.wait(5)
    elapsed, error = timed(lambda: read(db))
    assert isinstance(error, StorageUnavailable) and elapsed < FAST
    assert connects.calls == 2
    connects.release.set()
    probe.join(5)
    assert database.health(str(tmp_path / "c.sqlite3")) == "ok"
    read(db)  # and the database answers again
    db.close()


class StoreOpenedUnderTheLock(ClassRoom):
    """A class room that opens its store while holding its lock, as a careless one would."""

    def store(self) -> ClassStore:
        with self._lock:
            if self._store is None:
                db = self._connect()
                try:
                    migrate(db)
                except BaseException:
                    db.close()
                    raise
                self._store = ClassStore(db)
            return self._store


def _ten_first_uses(tmp_path: Path, room: type[ClassRoom], slow: float) -> tuple[float, int]:
    """Ten threads' first use of a class room whose every connect takes ``slow`` seconds
    and fails: (seconds until the last is refused, connects tried)."""
    connects = Connects(tmp_path / f"{time.monotonic_ns()}.sqlite3")
    connects.fail = True
    real = connects.connect

    def slow_connect() -> Connection:
        time.sleep(slow)
        return real()

    dialect = dataclasses.replace(connects.dialect, connect=slow_connect)
    opened = room(lambda: Database(dialect), retention=timedelta(hours=1), clock=Clock())
    start = time.monotonic()
    with ThreadPoolExecutor(10) as pool:
        errors = list(pool.map(lambda _: timed(lambda: opened.find(CODE))[1], range(10)))
    assert all(isinstance(e, StorageUnavailable) for e in errors)
    return time.monotonic() - start, connects.calls


def test_ten_first_uses_wait_out_their_connects_together_not_in_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No back-off to help: the class room opens its store outside its lock, so ten first
    uses of a silent store are refused after about one connect, not ten in a row."""
    monkeypatch.setattr(database, "BACKOFF_S", 0.0)
    slow = 0.3
    elapsed, calls = _ten_first_uses(tmp_path, ClassRoom, slow)
    assert elapsed < 4 * slow and calls == 10


def test_teeth_a_room_that_opens_its_store_under_its_lock_queues_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "BACKOFF_S", 0.0)
    slow = 0.3
    elapsed, calls = _ten_first_uses(tmp_path, StoreOpenedUnderTheLock, slow)
    assert elapsed >= 10 * slow * 0.9 and calls == 10


def test_no_lock_is_held_across_a_connect(tmp_path: Path) -> None:
    """While one thread's connect hangs, another still gets a connection, and closing the
    database does not wait for the hung connect."""
    connects = Connects(tmp_path / "c.sqlite3")
    connects.block_call = 2
    db = connects.database()
    holding = threading.Event()
    done = threading.Event()

    def hold() -> None:  # the first connection, lent for the whole test
        with db.read():
            holding.set()
            done.wait(10)

    first = threading.Thread(target=hold)
    first.start()
    assert holding.wait(5)
    hung: list[BaseException | None] = []
    second = threading.Thread(target=lambda: hung.append(timed(lambda: read(db))[1]))
    second.start()
    assert connects.blocked.wait(5)
    elapsed, error = timed(lambda: read(db))  # the third connect, beside the hung one
    assert error is None and elapsed < FAST
    done.set()
    first.join(5)
    elapsed, _ = timed(db.close)
    assert elapsed < FAST and second.is_alive()
    connects.release.set()  # the hung connect completes into a closed pool
    second.join(5)
    assert isinstance(hung[0], StorageUnavailable)


def test_no_lock_twin_a_lock_held_across_the_connect_blocks_every_borrower(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The teeth of the test above: a pool that connects under its lock (as it once did)
    leaves the third borrower waiting for the hung connect."""
    real = database._Pool._connect

    def under_lock(self: Any) -> Connection:
        with self._ready:
            conn: Connection = real(self)
            return conn

    monkeypatch.setattr(database._Pool, "_connect", under_lock)
    connects = Connects(tmp_path / "c.sqlite3")
    connects.block_call = 2
    db = connects.database()
    release_first = threading.Event()

    def hold() -> None:
        with db.read():
            release_first.wait(10)

    first = threading.Thread(target=hold)
    first.start()
    second = threading.Thread(target=lambda: timed(lambda: read(db)))
    time.sleep(0.2)
    second.start()
    assert connects.blocked.wait(5)
    third = threading.Thread(target=lambda: read(db))
    third.start()
    third.join(FAST)
    assert third.is_alive()  # stuck behind the hung connect
    connects.release.set()
    release_first.set()
    for thread in (first, second, third):
        thread.join(5)
    db.close()


# --- a real PostgreSQL ------------------------------------------------------------------


def test_a_real_postgres_answers_and_bounds_each_statement(
    postgres: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    db = Database(postgres_dialect(postgres.url))
    with db.read() as tx:
        assert tx.one("SHOW statement_timeout") == (f"{STATEMENT_TIMEOUT_MS // 1000}s",)
    assert db.state == "ok"
    start = time.monotonic()
    with pytest.raises(StorageUnavailable) as refused:
        with db.read() as tx:
            tx.rows("SELECT pg_sleep(10)")
    elapsed = time.monotonic() - start
    assert STATEMENT_TIMEOUT_MS / 1000 - 0.5 <= elapsed < STATEMENT_TIMEOUT_MS / 1000 + 2
    fault = fault_of(refused.value)
    assert "statement timeout" in fault.message and "PostgreSQL at" in fault.message
    assert any("statement timeout" in line for line in logged(caplog))
    # The connection survives its cancelled statement, and the database still answers.
    with db.read() as tx:
        assert tx.one("SELECT 1") == (1,)
    assert db.state == "ok"
    db.close()


def test_the_urls_own_statement_timeout_wins(postgres: Cluster) -> None:
    db = Database(postgres_dialect(f"{postgres.url}&options=-c%20statement_timeout%3D1500"))
    with db.read() as tx:
        assert tx.one("SHOW statement_timeout") == ("1500ms",)
    db.close()


# --- a data directory that cannot be made, is read-only, or is full ----------------------


@pytest.mark.parametrize("under", [False, True], ids=["file-in-its-place", "under-a-file"])
def test_a_data_directory_that_cannot_be_made_is_named(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, under: bool
) -> None:
    squatter = tmp_path / "var"
    squatter.write_text("not a directory")
    data = squatter / "classes" if under else squatter
    settings = AppSettings(data_dir=str(data))
    elapsed, error = timed(lambda: room_on(lambda: open_database(settings)).find(CODE))
    fault = fault_of(error)
    assert elapsed < FAST
    assert str(data) in fault.message, fault.message
    assert ("a file is in its place" if not under else "Not a directory") in fault.message
    lines = logged(caplog)
    assert len(lines) == 1 and str(data) in lines[0]
    assert squatter.read_text() == "not a directory"  # left as it was
    # Through the app: a 503 (with Retry-After), and /healthz says so.
    with TestClient(create_app(settings=settings)) as c:
        for path in (f"/api/classes/{CODE}", f"/class/{CODE}"):
            r = c.get(path)
            assert r.status_code == 503 and r.headers["retry-after"], path
            assert str(data) not in r.text  # the path is the operator's, not the page's
        assert c.get("/healthz").json()["classes"] == "unreachable"


# The read-only case runs in a child process: as root (tests often are) a mode of 0555 stops
# nothing, so the child drops CAP_DAC_OVERRIDE (setpriv) and meets the mode bits like anyone.
CHILD = """
import logging, sys
from datetime import timedelta
from pathlib import Path
from app.classes.errors import StorageUnavailable
from app.classes.service import ClassRoom, open_database
from app.config import AppSettings

data, code = Path(sys.argv[1]), sys.argv[2]
try:
    (data / "probe").touch()
    print("WRITABLE")
    sys.exit(0)
except PermissionError:
    pass
logging.basicConfig(level=logging.WARNING, format="LOG %(message)s", stream=sys.stdout)
settings = AppSettings(data_dir=str(data))
for action in ("find", "open"):
    room = ClassRoom(lambda: open_database(settings), retention=timedelta(hours=1))
    try:
        room.find(code) if action == "find" else room.open("http://x")
        print(action, "ANSWERED")
    except StorageUnavailable as refused:
        print(action, "REFUSED", refused.__cause__)
"""


def _without_write_rights() -> list[str]:
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, and without setpriv a read-only mode stops no write")
    return [setpriv, "--bounding-set=-dac_override", "--inh-caps=-dac_override", "--"]


def test_a_read_only_data_directory_is_named_and_loses_nothing(tmp_path: Path) -> None:
    data = tmp_path / "var"
    settings = AppSettings(data_dir=str(data))
    room = room_on(lambda: open_database(settings))
    code = room.open("http://x").code
    room.close()
    database_file = data / SQLITE_FILE
    data.chmod(0o555)
    database_file.chmod(0o444)
    try:
        child = subprocess.run(
            [*_without_write_rights(), sys.executable, "-c", CHILD, str(data), code],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
    finally:
        data.chmod(0o755)
        database_file.chmod(0o644)
    out = child.stdout
    if "WRITABLE" in out:
        pytest.skip("this machine lets the child write to a directory of mode 0555")
    assert child.returncode == 0, child.stderr[-2000:]
    for action in ("find", "open"):
        line = next(x for x in out.splitlines() if x.startswith(action))
        assert "REFUSED" in line and str(database_file) in line, out
        assert "readonly" in line or "unable to open" in line, out
    logs = [x for x in out.splitlines() if x.startswith("LOG ")]
    assert logs and all(str(database_file) in x for x in logs), out
    # Writable again: the class opened before is all there.
    again = room_on(lambda: open_database(settings))
    assert again.find(code) is not None
    again.close()


class Full:
    """A SQLite connection whose disk fills up on demand: every write then fails as SQLite
    says it ("database or disk is full"), reads go on."""

    def __init__(self, conn: Connection, disk: dict[str, bool]) -> None:
        self._conn = conn
        self._disk = disk

    def execute(self, sql: str, params: Any = (), /) -> Any:
        words = sql.lstrip().split(None, 1)
        if self._disk["full"] and words and words[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, params)

    def close(self) -> None:
        self._conn.close()


@pytest.fixture
def full_disk(tmp_path: Path) -> tuple[Dialect, dict[str, bool]]:
    disk = {"full": False}
    plain = sqlite_dialect(tmp_path / SQLITE_FILE)
    return dataclasses.replace(plain, connect=lambda: Full(plain.connect(), disk)), disk


def test_a_full_disk_refuses_writes_by_name_and_loses_nothing(
    tmp_path: Path,
    full_disk: tuple[Dialect, dict[str, bool]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    dialect, disk = full_disk
    room = room_on(lambda: Database(dialect))
    code = room.open("http://x").code
    disk["full"] = True
    caplog.clear()
    elapsed, error = timed(lambda: room.open("http://x"))
    fault = fault_of(error)
    path = str(tmp_path / SQLITE_FILE)
    assert elapsed < FAST
    assert fault.message == f"The class store cannot write to {path}: database or disk is full"
    assert logged(caplog) == [fault.message]  # one line, naming the file
    assert room.find(code) is not None  # reads go on
    disk["full"] = False
    assert room.find(room.open("http://x").code) is not None
    assert room.find(code) is not None  # what was stored before is all there
    room.close()


def test_a_full_disk_is_a_503_with_one_log_line_naming_the_file(
    tmp_path: Path,
    full_disk: tuple[Dialect, dict[str, bool]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    dialect, disk = full_disk
    app = create_app(settings=AppSettings(data_dir=str(tmp_path)))
    app.state.classes = room_on(lambda: Database(dialect))
    with TestClient(app) as c:
        assert c.post("/api/classes", json={}, headers=SAME).status_code == 201
        disk["full"] = True
        caplog.clear()
        r = c.post("/api/classes", json={}, headers=SAME)
    assert r.status_code == 503 and r.headers["retry-after"]
    lines = logged(caplog)
    assert len(lines) == 1 and str(tmp_path / SQLITE_FILE) in lines[0], lines
    assert "disk is full" in lines[0]
