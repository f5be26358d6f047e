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
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from app.classes.errors import StorageUnavailable

Row = tuple[Any, ...]
Params = Sequence[Any]
BUSY_TIMEOUT_S = 5.0


class Connection(Protocol):
    """What the pool needs of a DB-API connection (sqlite3's and psycopg's both fit)."""

    def execute(self, sql: str, params: Params = ..., /) -> Any: ...
    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Dialect:
    name: str  # "sqlite" or "postgresql"
    connect: Callable[[], Connection]
    begin_write: tuple[str, ...]  # the statements that open a writing transaction
    placeholder: str  # what `?` becomes
    # Errors after which a connection is thrown away rather than pooled again.
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

    def sql(self, text: str) -> str:
        return text if self.placeholder == "?" else text.replace("?", self.placeholder)


def sqlite_dialect(path: Path) -> Dialect:
    path.parent.mkdir(parents=True, exist_ok=True)

    def connect() -> Connection:
        # check_same_thread=False: the pool hands a connection to one thread at a time.
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        _wal(conn)
        conn.execute("PRAGMA synchronous=NORMAL")
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

    def connect() -> Connection:
        conn: Connection = psycopg.connect(url, autocommit=True, connect_timeout=10)
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
    )


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
    """Up to `size` connections, each lent to one thread for one transaction."""

    def __init__(self, dialect: Dialect, size: int) -> None:
        self.dialect = dialect
        self.size = size
        self._idle: queue.Queue[Connection] = queue.Queue()  # FIFO: waiters in turn
        self._every: list[Connection] = []
        self._lock = threading.Lock()
        self.closed = False

    def borrow(self) -> Connection:
        if self.closed:
            raise StorageUnavailable()
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            if len(self._every) < self.size:
                try:
                    conn = self.dialect.connect()
                except self.dialect.unavailable as error:
                    raise StorageUnavailable() from error
                self._every.append(conn)
                return conn
        try:
            return self._idle.get(timeout=BUSY_TIMEOUT_S * 2)
        except queue.Empty:
            raise StorageUnavailable() from None

    def give_back(self, conn: Connection, keep: bool) -> None:
        if keep and not self.closed:
            self._idle.put(conn)
            return
        with self._lock:
            if conn in self._every:
                self._every.remove(conn)
        _close(conn)

    def close(self) -> None:
        with self._lock:
            self.closed = True
            every, self._every = self._every, []
        for conn in every:
            _close(conn)


def _close(conn: Connection) -> None:
    try:
        conn.close()
    except Exception:  # a broken connection may refuse even to close; nothing is left to do
        pass


class Database:
    """Writers and readers borrow from pools of their own, so a poll never queues behind a
    burst of submissions (with WAL a SQLite reader never waits for the writer either)."""

    def __init__(self, dialect: Dialect, *, readers: int = 4) -> None:
        self.dialect = dialect
        self._writers = _Pool(dialect, dialect.writers)
        self._readers = _Pool(dialect, readers)

    @contextmanager
    def write(self) -> Iterator[Transaction]:
        with self._transaction(self._writers, self.dialect.begin_write) as tx:
            yield tx

    @contextmanager
    def read(self) -> Iterator[Transaction]:
        # A deferred BEGIN: one snapshot for every statement of the read (SQLite's WAL and
        # PostgreSQL's read committed each see committed data only).
        with self._transaction(self._readers, ("BEGIN",)) as tx:
            yield tx

    @contextmanager
    def _transaction(self, pool: _Pool, begin: tuple[str, ...]) -> Iterator[Transaction]:
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
        except self.dialect.broken as error:
            keep = False
            raise StorageUnavailable() from error
        except self.dialect.unavailable as error:
            _quietly_rollback(conn)
            raise StorageUnavailable() from error
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
