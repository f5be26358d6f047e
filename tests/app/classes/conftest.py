"""The class store on both backends: SQLite in a tmp directory, and PostgreSQL in a throwaway
cluster started for the test session (initdb into a tmp directory, pg_ctl on a unix socket
there, createdb; stopped and deleted at the end). Without PostgreSQL's binaries the
PostgreSQL cases are skipped with a message saying how to get them (`make setup-test` as
root installs Debian's postgresql)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.classes.database import Database, postgres_dialect, sqlite_dialect
from app.classes.limits import Limits
from app.classes.service import ClassRoom, open_database
from app.config import AppSettings
from app.main import create_app
from tests.app.classes.helpers import Clock

NO_POSTGRES = (
    "PostgreSQL is not installed (no initdb/pg_ctl on PATH or under /usr/lib/postgresql):"
    " the PostgreSQL storage tests are skipped. `make setup-test` run as root installs"
    " Debian's postgresql; or `apt-get install postgresql`."
)


def _bindir() -> Path | None:
    found = shutil.which("initdb")
    if found and (Path(found).resolve().parent / "createdb").exists():
        return Path(found).resolve().parent  # Debian links initdb to its versioned bin/
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "initdb").exists():
            return Path(candidate)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    url: str
    admin: Callable[[str], None]


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    bindir = _bindir()
    if bindir is None:
        pytest.skip(NO_POSTGRES)
    root = Path(tempfile.mkdtemp(prefix="station08-pg-"))
    run_as: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        user = "postgres"
        try:
            pwd.getpwnam(user)
        except KeyError:
            user = "nobody"
        shutil.chown(root, user)
        run_as = ["runuser", "-u", user, "--"]
    data, sock, port = root / "data", root, _free_port()
    log = root / "server.log"

    def run(*cmd: str) -> None:
        subprocess.run([*run_as, *cmd], check=True, capture_output=True, cwd=root, timeout=120)

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "station08",
            "-E", "UTF8", "--locale=C", "--no-sync")  # fmt: skip
        options = f"-k {sock} -p {port} -c listen_addresses='' -c fsync=off"
        options += " -c synchronous_commit=off -c max_connections=200"
        run(str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log), "-w", "start")
        run(str(bindir / "createdb"), "-h", str(sock), "-p", str(port), "-U", "station08",
            "classes")  # fmt: skip
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as failed:
        shutil.rmtree(root, ignore_errors=True)
        detail = getattr(failed, "stderr", b"") or b""
        pytest.skip(f"could not start a throwaway PostgreSQL cluster: {detail.decode()[-500:]}")
    url = f"postgresql://station08@/classes?host={sock}&port={port}"

    def admin(sql: str) -> None:
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql)

    try:
        yield Cluster(url, admin)
    finally:
        subprocess.run(
            [*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Backend:
    """One database, with as many stores (a 'restart' is a new one) as a test opens."""

    name: str
    database: Callable[[], Database]
    rooms: list[ClassRoom] = field(default_factory=list)

    def room(
        self,
        clock: Clock | None = None,
        limits: Limits | None = None,
        hours: int = 24,
        purge_every: float = 600,
    ) -> ClassRoom:
        room = ClassRoom(
            self.database,
            retention=timedelta(hours=hours),
            clock=clock or Clock(),
            limits=limits,
            purge_every=purge_every,
        )
        self.rooms.append(room)
        return room


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        path = tmp_path / "classes.sqlite3"
        backend = Backend("sqlite", lambda: Database(sqlite_dialect(path)))
    else:
        cluster: Cluster = request.getfixturevalue("postgres")
        cluster.admin("DROP SCHEMA public CASCADE; CREATE SCHEMA public")  # an empty database
        backend = Backend("postgres", lambda: Database(postgres_dialect(cluster.url)))
    yield backend
    for room in backend.rooms:
        room.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app_client(tmp_path: Path, clock: Clock) -> Iterator[TestClient]:
    """An app whose live classes run on the settable clock."""
    settings = AppSettings(data_dir=str(tmp_path))
    app = create_app(settings=settings)
    app.state.classes = ClassRoom(
        lambda: open_database(settings), retention=timedelta(hours=24), clock=clock
    )
    with TestClient(app) as c:
        yield c


@dataclass
class Silent:
    """A TCP listener standing in for a PostgreSQL that accepts and never answers."""

    url: str
    accepted: list[socket.socket]


@pytest.fixture
def silent_postgres() -> Iterator[Silent]:
    """A listener on 127.0.0.1 that accepts every connection and never says a word (a hung
    server, or a proxy in front of a dead one); `accepted` counts the connects that reached it.
    """
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(128)
    server.settimeout(0.05)
    stop = threading.Event()
    silent = Silent(f"postgresql://station08@127.0.0.1:{server.getsockname()[1]}/classes", [])

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            silent.accepted.append(conn)  # held open, never read from or written to

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield silent
    finally:
        stop.set()
        thread.join(5)
        server.close()
        for conn in silent.accepted:
            conn.close()
