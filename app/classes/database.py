"""One small connection pool over SQLite or PostgreSQL, and transactions on it.

Both backends run the same SQL (`app.classes.store`, `app.classes.migrations`); a query is
written with ``?`` placeholders and PostgreSQL's dialect turns each into ``%s``. What differs
is how a connection is made, how a writing transaction begins, and one clause: a submission
reads its class's row `FOR SHARE` on PostgreSQL (SQLite has no such clause and needs none):

- SQLite: a file under the data directory, in WAL mode (readers never wait for the writer,
  and several worker processes share the file), `busy_timeout` so a writer waits for another
  instead of failing, `synchronous=NORMAL` (WAL's durable-against-a-crashed-process setting:
  a power cut may lose the last commits, a restarted server loses nothing). A writing
  transaction is `BEGIN IMMEDIATE`, taking the write lock before its first read, so two
  writers never both read and then collide on the upgrade (which SQLite answers with an
  immediate SQLITE_BUSY that no timeout waits out).
- PostgreSQL: `psycopg` connections in autocommit with explicit `BEGIN`; read committed.
  A prediction and the reveal (or a change of question) of its class are serialised on the
  class's row: the reveal updates it, which waits for every submission holding it FOR SHARE
  and makes any later one wait for the reveal, while submissions to one class share it and
  run side by side (when each updated the row, 16 threads submitted ~250 a second to one
  class against ~400-680 spread over 16 classes; sharing it, ~350 either way).

The pools hand each thread its own connection for one transaction and take it back, so the
store is safe to call from any thread of the app's pool; they bound the connections a worker
process opens (SQLite: one writer and four readers; PostgreSQL: eight and four).

A database that is down, or accepts connections and never answers, fails a request within
seconds, and fails it alone:

- every wait is bounded: a PostgreSQL connect by `CONNECT_TIMEOUT_S` (per address the host
  name resolves to), a statement by the server's `statement_timeout` (`STATEMENT_TIMEOUT_MS`,
  lock waits included), a SQLite writer by `busy_timeout` (`BUSY_TIMEOUT_S`), a thread
  waiting for a pooled connection by `WAIT_S`;
- no lock is held across a connect: a pool reserves a slot under its lock and connects
  outside it, so other threads take idle connections, give theirs back, or fail meanwhile;
- a `Breaker` per database (shared by every pool this process opens on it) remembers a
  failed connect: for `BACKOFF_S` afterwards a connect is refused at once, then one thread
  tries again while the others are still refused, so thirty learners do not each wait out
  a connect timeout. `health` reads its last known state for `/healthz`, without connecting.

Each failure is `StorageUnavailable` (503 with Retry-After in the API and the pages), caused
by a `StorageFault` whose message names the path or the server and why ("The class store
cannot write to /srv/var/classes.sqlite3: database or disk is full"); that line is logged
once where it happens (a refused connect: once per `BACKOFF_S`). A fault rolls back its own
transaction only, so nothing committed before it is lost.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from app.classes.errors import StorageFault, StorageUnavailable

Row = tuple[Any, ...]
Params = Sequence[Any]
BUSY_TIMEOUT_S = 5.0  # SQLite: how long a writer waits for another process's write lock
CONNECT_TIMEOUT_S = 3  # PostgreSQL: psycopg's connect_timeout (whole seconds, at least 2)
STATEMENT_TIMEOUT_MS = 5000  # PostgreSQL: the server cancels a statement running longer
WAIT_S = BUSY_TIMEOUT_S * 2  # how long a thread waits for a pooled connection to come back
BACKOFF_S = 5.0  # after a failed connect, how long the next ones are refused at once

log = logging.getLogger(__name__)

State = Literal["ok", "unreachable", "not opened"]


class Connection(Protocol):
    """What the pool needs of a DB-API connection (sqlite3's and psycopg's both fit)."""

    def execute(self, sql: str, params: Params = ..., /) -> Any: ...
    def close(self) -> None: ...


class Breaker:
    """What this process last learnt of one database: whether its last connect worked, and
    until when a new connect is refused without trying (`BACKOFF_S` after a failure).

    Once the back-off has passed, one thread at a time may try (`allow` returns True for
    it: the probe); the others are refused until the probe reports. Its own lock is held
    only to read or set these fields, never across a connect.
    """

    def __init__(self, where: str) -> None:
        self.where = where  # the path or the server, as a log line names it
        self._lock = threading.Lock()
        self._state: State = "not opened"
        self._until = 0.0  # time.monotonic() before which a connect is refused
        self._probing = False
        self._fault: StorageFault | None = None  # why the last connect failed

    @property
    def state(self) -> State:
        with self._lock:
            return self._state

    def allow(self) -> bool:
        """Raise StorageUnavailable (from the last fault) while connects are refused; True
        for the probe."""
        with self._lock:
            if self._state != "unreachable":
                return False
            if self._probing or time.monotonic() < self._until:
                raise StorageUnavailable() from self._fault
            self._probing = True
            return True

    def connected(self, probe: bool) -> None:
        with self._lock:
            again = self._state == "unreachable"
            self._state = "ok"
            self._fault = None
            if probe:
                self._probing = False
        if again:
            log.warning("The class store reaches %s again.", self.where)

    def failed(self, error: BaseException, probe: bool) -> StorageFault:
        """Record a failed connect and log it (once per back-off); the fault to raise."""
        if isinstance(error, StorageFault):
            fault = error
        else:
            message = f"The class store cannot open {self.where}: {_reason(error)}"
            fault = StorageFault(message, self.where)
            fault.__cause__ = error
        with self._lock:
            first = self._state != "unreachable" or probe
            self._state = "unreachable"
            self._fault = fault
            self._until = time.monotonic() + BACKOFF_S
            if probe:
                self._probing = False
        if first:
            log.error("%s (new connections are refused for %g s)", fault.message, BACKOFF_S)
        return fault

    def abandoned(self, probe: bool) -> None:
        """A connect that ended in something other than the database's answer."""
        if probe:
            with self._lock:
                self._probing = False


_breakers: dict[str, Breaker] = {}
_breakers_lock = threading.Lock()


def breaker(address: str, where: str) -> Breaker:
    """The breaker of the database at `address` (a SQLite path or a PostgreSQL URL): one per
    database and process, so every pool and every reopened `Database` on it shares it."""
    with _breakers_lock:
        found = _breakers.get(address)
        if found is None:
            found = _breakers[address] = Breaker(where)
        return found


def health(address: str) -> State:
    """The last known state of the database at `address`, without connecting: "not opened"
    until this process first tries it, then "ok" or "unreachable" as its last connect went."""
    with _breakers_lock:
        found = _breakers.get(address)
    return "not opened" if found is None else found.state


@dataclass(frozen=True, slots=True)
class Dialect:
    name: str  # "sqlite" or "postgresql"
    connect: Callable[[], Connection]
    begin_write: tuple[str, ...]  # the statements that open a writing transaction
    placeholder: str  # what `?` becomes
    # Errors after which a connection is thrown away rather than pooled again (when the
    # connection says it is broken: a statement timeout leaves it usable).
    broken: tuple[type[BaseException], ...]
    unavailable: tuple[type[BaseException], ...]
    integrity: tuple[type[BaseException], ...]
    # What a CREATE ... IF NOT EXISTS raises when another process created the object first.
    exists: tuple[type[BaseException], ...]
    # What makes a read of a row lock it against writers until commit, not against readers
    # who say the same: PostgreSQL's FOR SHARE. SQLite needs none: a writing transaction
    # there holds the database's one write lock (BEGIN IMMEDIATE).
    for_share: str
    # Writing connections per process. SQLite: one, so a process's writers queue here in
    # turn, and only other processes meet SQLite's busy handler (which sleeps in steps of up
    # to 100 ms). PostgreSQL: several, each locking only the rows it writes.
    writers: int
    # What this process last learnt of the database (shared by every Dialect on it).
    breaker: Breaker

    def sql(self, text: str) -> str:
        return text if self.placeholder == "?" else text.replace("?", self.placeholder)


def sqlite_dialect(path: Path) -> Dialect:
    """SQLite at `path`; its directory is made on the first connect, not here, so a
    directory that cannot be made is a refused connect like any other."""

    def connect() -> Connection:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            reason = "a file is in its place" if path.parent.is_file() else _reason(error)
            raise StorageFault(
                f"The class store cannot make its directory {path.parent}: {reason}", str(path)
            ) from error
        # check_same_thread=False: the pool hands a connection to one thread at a time.
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            _wal(conn)
            conn.execute("PRAGMA synchronous=NORMAL")
        except BaseException:
            conn.close()
            raise
        return conn

    return Dialect(
        name="sqlite",
        connect=connect,
        begin_write=("BEGIN IMMEDIATE",),
        placeholder="?",
        broken=(),
        unavailable=(sqlite3.OperationalError,),
        integrity=(sqlite3.IntegrityError,),
        exists=(),  # CREATE ... IF NOT EXISTS runs under the one write lock: it cannot race
        for_share="",
        writers=1,
        breaker=breaker(str(path), str(path)),
    )


# A new database file's first connections race to switch it to WAL, which needs the file to
# themselves: SQLite answers the loser "database is locked" at once, without the busy handler
# (seen with four workers opening one new file together). WAL is kept in the file, so a retry
# finds it set by the winner.
WAL_RETRY_S = 0.01


def _wal(conn: sqlite3.Connection) -> None:
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(WAL_RETRY_S)


def postgres_dialect(url: str) -> Dialect:
    import psycopg  # only a deployment on PostgreSQL needs it loaded
    from psycopg.conninfo import conninfo_to_dict

    def connect() -> Connection:
        # What the URL sets itself wins: its connect_timeout and keepalives over these, its
        # `options` after the statement timeout (a later -c overrides an earlier one). TCP
        # keepalives notice a server gone silent while a connection waits for its answer
        # (a unix socket has none).
        given = conninfo_to_dict(url)
        ours: dict[str, Any] = {
            "connect_timeout": CONNECT_TIMEOUT_S,
            "keepalives": 1,
            "keepalives_idle": 5,
            "keepalives_interval": 2,
            "keepalives_count": 2,
        }
        options = f"-c statement_timeout={STATEMENT_TIMEOUT_MS} {given.get('options') or ''}"
        conn: Connection = psycopg.connect(
            url,
            autocommit=True,
            options=options.strip(),
            **{name: value for name, value in ours.items() if name not in given},
        )
        return conn

    return Dialect(
        name="postgresql",
        connect=connect,
        begin_write=("BEGIN",),
        placeholder="%s",
        broken=(psycopg.OperationalError, psycopg.InterfaceError),
        unavailable=(psycopg.OperationalError, psycopg.InterfaceError),
        integrity=(psycopg.errors.UniqueViolation,),
        # Two CREATE TABLE IF NOT EXISTS at once both find no table, and the second to commit
        # meets the first's catalogue rows: as a unique violation, or (seen with four workers
        # starting together) as "relation already exists" or "type already exists".
        exists=(
            psycopg.errors.UniqueViolation,
            psycopg.errors.DuplicateTable,
            psycopg.errors.DuplicateObject,
        ),
        for_share=" FOR SHARE",
        writers=8,
        breaker=breaker(url, _server(url)),
    )


def _server(url: str) -> str:
    """PostgreSQL's host, port and database, as a log line names them (never a password)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(url)
    except Exception:  # a malformed URL: psycopg says why when it connects
        return "PostgreSQL"
    host = params.get("host") or params.get("hostaddr") or "localhost"
    return f"PostgreSQL at {host}:{params.get('port') or 5432}/{params.get('dbname') or ''}"


def _reason(error: BaseException) -> str:
    """An error's cause in one line, without the path a log line names already."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


class Transaction:
    """Statements inside one transaction; each returns its rows (none for a plain write)."""

    def __init__(self, conn: Connection, dialect: Dialect) -> None:
        self._conn = conn
        self._dialect = dialect

    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        cursor = self._conn.execute(self._dialect.sql(sql), tuple(params))
        return [tuple(r) for r in cursor.fetchall()] if cursor.description else []

    def one(self, sql: str, params: Params = ()) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None


class _Pool:
    """Up to `size` connections, each lent to one thread for one transaction.

    Its lock guards only the lists and counts: a thread that must connect reserves a slot
    under it (`_connecting`) and connects outside it, and gives the slot back if that fails.
    """

    def __init__(self, dialect: Dialect, size: int) -> None:
        self.dialect = dialect
        self.size = size
        self._idle: deque[Connection] = deque()
        self._every: list[Connection] = []  # idle and lent
        self._connecting = 0
        self._ready = threading.Condition(threading.Lock())  # a connection or a slot is free
        self.closed = False

    def borrow(self) -> Connection:
        deadline = time.monotonic() + WAIT_S
        with self._ready:
            while True:
                if self.closed:
                    raise StorageUnavailable()
                if self._idle:
                    return self._idle.popleft()
                if len(self._every) + self._connecting < self.size:
                    self._connecting += 1
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    log.warning(
                        "The class store waited %g s for a free connection to %s.",
                        WAIT_S,
                        self.dialect.breaker.where,
                    )
                    raise StorageUnavailable()
                self._ready.wait(left)
        try:
            conn = self._connect()
        except BaseException:
            with self._ready:
                self._connecting -= 1
                self._ready.notify_all()  # waiters see the slot, and the breaker's answer
            raise
        with self._ready:
            self._connecting -= 1
            if not self.closed:
                self._every.append(conn)
                return conn
        _close(conn)
        raise StorageUnavailable()

    def _connect(self) -> Connection:
        breaker = self.dialect.breaker
        refused: tuple[type[BaseException], ...] = (
            StorageFault,
            OSError,
            *self.dialect.unavailable,
        )
        probe = breaker.allow()
        try:
            conn = self.dialect.connect()
        except refused as error:
            raise StorageUnavailable() from breaker.failed(error, probe)
        except BaseException:
            breaker.abandoned(probe)
            raise
        breaker.connected(probe)
        return conn

    def give_back(self, conn: Connection, keep: bool) -> None:
        with self._ready:
            if keep and not self.closed:
                self._idle.append(conn)
                self._ready.notify()
                return
            if conn in self._every:
                self._every.remove(conn)
            self._ready.notify()
        _close(conn)

    def drop_idle(self) -> None:
        """Close the idle connections (after one broke, the others likely have too)."""
        with self._ready:
            idle = list(self._idle)
            self._idle.clear()
            for conn in idle:
                self._every.remove(conn)
            self._ready.notify_all()
        for conn in idle:
            _close(conn)

    def close(self) -> None:
        with self._ready:
            self.closed = True
            every, self._every = self._every, []
            self._idle.clear()
            self._ready.notify_all()
        for conn in every:
            _close(conn)


def _close(conn: Connection) -> None:
    try:
        conn.close()
    except Exception:  # a broken connection may refuse even to close; nothing is left to do
        pass


def _usable(conn: Connection) -> bool:
    """False once psycopg knows the connection is gone (sqlite3's has no such state)."""
    return not (getattr(conn, "closed", False) or getattr(conn, "broken", False))


class Database:
    """Writers and readers borrow from pools of their own, so a poll never queues behind a
    burst of submissions (with WAL a SQLite reader never waits for the writer either)."""

    def __init__(self, dialect: Dialect, *, readers: int = 4) -> None:
        self.dialect = dialect
        self._writers = _Pool(dialect, dialect.writers)
        self._readers = _Pool(dialect, readers)

    @property
    def state(self) -> State:
        """The last known state of this database (`health`), without connecting."""
        return self.dialect.breaker.state

    @contextmanager
    def write(self) -> Iterator[Transaction]:
        with self._transaction(self._writers, self.dialect.begin_write, "write to") as tx:
            yield tx

    @contextmanager
    def read(self) -> Iterator[Transaction]:
        # A deferred BEGIN: one snapshot for every statement of the read (SQLite's WAL and
        # PostgreSQL's read committed each see committed data only).
        with self._transaction(self._readers, ("BEGIN",), "read") as tx:
            yield tx

    @contextmanager
    def _transaction(
        self, pool: _Pool, begin: tuple[str, ...], doing: str
    ) -> Iterator[Transaction]:
        failures: tuple[type[BaseException], ...] = self.dialect.broken + self.dialect.unavailable
        conn = pool.borrow()
        keep = True
        try:
            for statement in begin:
                conn.execute(statement)
            try:
                yield Transaction(conn, self.dialect)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except failures as error:
            keep = _usable(conn)
            if keep:
                _quietly_rollback(conn)
            else:  # the server went away or restarted: its other connections are gone too
                self._writers.drop_idle()
                self._readers.drop_idle()
            where = self.dialect.breaker.where
            fault = StorageFault(f"The class store cannot {doing} {where}: {_reason(error)}", where)
            fault.__cause__ = error
            log.error("%s", fault.message)
            raise StorageUnavailable() from fault
        finally:
            pool.give_back(conn, keep)

    def close(self) -> None:
        self._writers.close()
        self._readers.close()


def _quietly_rollback(conn: Connection) -> None:
    try:
        conn.execute("ROLLBACK")
    except Exception:  # nothing was open, or the connection is gone
        pass
