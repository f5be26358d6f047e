"""Every query the classes make, the same text for SQLite and PostgreSQL (`?` placeholders).

Times are whole Unix seconds, passed in by the caller (the service's clock), so a test can
move time without sleeping; a class whose `expires_at` has passed is left out of every read
at once, before `purge` deletes it. Each method is one transaction.

A prediction and the reveal of its question are serialised on the class's row: a submission
reads it FOR SHARE (PostgreSQL; SQLite's writing transactions are serialised whole) before it
looks for the reveal and writes, and the reveal updates it first, so a prediction is either
committed before the reveal (and counted in what is revealed) or sees the reveal and is
refused; never counted after the class has seen the answer. (In PostgreSQL's read committed
each statement sees what was committed before it began, so the check is a statement issued
after the lock is held, not part of the statement that takes it.)

The caps hold exactly under concurrent writers, which a count followed by an insert does not
give in read committed (two writers both count 59 against 60 and both insert): on PostgreSQL
an opening, and a learner's first prediction on a question, first take a transaction-level
advisory lock (`_serialise`: one for all openings, which are rare; one per class and
question), then count with a statement begun after it, which sees every insert committed
before the lock was granted. A learner changing their answer takes no lock, so only
newcomers to a question queue, and only behind each other. The learner's lock is taken after
the class's row is held FOR SHARE, never before, so it cannot close a cycle with a reveal
waiting for that row. SQLite needs no lock: its writing transactions run one at a time.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from app.classes.database import Database, Transaction
from app.classes.errors import (
    AlreadyRevealed,
    ClassFull,
    QuestionMoved,
    RateLimited,
    UnknownClass,
)
from app.classes.limits import Limits
from app.classes.records import Learner, Learners
from app.classes.refusals import ClassLocked, UnknownLearner


@dataclass(frozen=True, slots=True)
class Stored:
    """A class's row as the service reads it, with its current question's state."""

    question: str
    expires_at: int
    revealed: bool
    answered: int
    locked: bool = False
    tally_hidden: bool = False  # the projector shows no tally until the reveal


Counts = list[tuple[str, bool | None, bool | None, int]]

_INFO = """SELECT c.question, c.expires_at,
    EXISTS (SELECT 1 FROM revealed r WHERE r.code = c.code AND r.question = c.question),
    (SELECT COUNT(*) FROM predictions p WHERE p.code = c.code AND p.question = c.question),
    c.locked, c.tally_hidden
    FROM classes c WHERE c.code = ? AND c.expires_at > ?"""


_REVEALED = "SELECT 1 FROM revealed WHERE code = ? AND question = ?"


def _said(value: int | None) -> bool | None:
    return None if value is None else bool(value)


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _lock_key(*parts: str) -> int:
    """A signed 64-bit advisory lock key for what `parts` name (a collision only makes two
    unrelated writers wait for each other)."""
    digest = hashlib.blake2b("\x1f".join(("station08", *parts)).encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big", signed=True)


class ClassStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def _serialise(self, tx: Transaction, *parts: str) -> None:
        """Wait for, and hold until this transaction ends, the lock `parts` name (PostgreSQL;
        SQLite's writer already holds the database's one write lock)."""
        if self.db.dialect.name == "postgresql":
            tx.one("SELECT pg_advisory_xact_lock(CAST(? AS BIGINT))", (_lock_key(*parts),))

    def create(
        self,
        code: str,
        host_hash: str,
        question: str,
        now: int,
        expires_at: int,
        limits: Limits,
        opener: str | None = None,
    ) -> None:
        """A new class; raises the dialect's integrity error when the code is taken.

        The opening limit counts the classes opened in the window by `opener` (a hash of the
        client's address), or, when `opener` is None, by anyone: an instructor key holder's
        classes are counted for the server as a whole. A refusal writes nothing."""
        since = now - limits.open_window
        with self.db.write() as tx:
            self._serialise(tx, "openings")  # the count below sees every opening before it
            if opener is None:
                recent = tx.one("SELECT COUNT(*) FROM classes WHERE created_at > ?", (since,))
                what = "classes opened on this server"
            else:
                recent = tx.one(
                    "SELECT COUNT(*) FROM openings WHERE opener = ? AND opened_at > ?",
                    (opener, since),
                )
                what = "classes opened from this address"
            if recent and int(recent[0]) >= limits.opens:
                raise RateLimited(what, limits.open_window)
            tx.rows(
                "INSERT INTO classes (code, host_hash, question, created_at, expires_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (code, host_hash, question, now, expires_at),
            )
            if opener is not None:
                tx.rows(
                    "INSERT INTO openings (code, opener, opened_at) VALUES (?, ?, ?)",
                    (code, opener, now),
                )

    def find(self, code: str, now: int) -> Stored | None:
        with self.db.read() as tx:
            return self._find(tx, code, now)

    def _find(self, tx: Transaction, code: str, now: int) -> Stored | None:
        row = tx.one(_INFO, (code, now))
        if row is None:
            return None
        return Stored(
            str(row[0]), int(row[1]), bool(row[2]), int(row[3]), bool(row[4]), bool(row[5])
        )

    def host_hash(self, code: str, now: int) -> str | None:
        with self.db.read() as tx:
            row = tx.one(
                "SELECT host_hash FROM classes WHERE code = ? AND expires_at > ?", (code, now)
            )
        return None if row is None else str(row[0])

    def set_question(self, code: str, question: str, now: int) -> Stored:
        with self.db.write() as tx:
            tx.rows(
                "UPDATE classes SET question = ? WHERE code = ? AND expires_at > ?",
                (question, code, now),
            )
            return self._found(tx, code, now)

    def reveal(self, code: str, now: int) -> Stored:
        """Reveal the class's current question (again is a no-op)."""
        with self.db.write() as tx:
            # Lock the class's row first: see the module's note.
            row = tx.one(
                "UPDATE classes SET question = question WHERE code = ? AND expires_at > ?"
                " RETURNING question",
                (code, now),
            )
            if row is None:
                raise UnknownClass(code)
            tx.rows(
                "INSERT INTO revealed (code, question) VALUES (?, ?)"
                " ON CONFLICT (code, question) DO NOTHING",
                (code, row[0]),
            )
            return self._found(tx, code, now)

    def set_locked(self, code: str, locked: bool, now: int) -> Stored:
        """Close the class to new learners, or open it again. The update holds the class's
        row, so a submission under way finishes first and every later one sees the change
        (see the module's note)."""
        with self.db.write() as tx:
            row = tx.one(
                "UPDATE classes SET locked = ? WHERE code = ? AND expires_at > ? RETURNING code",
                (int(locked), code, now),
            )
            if row is None:
                raise UnknownClass(code)
            return self._found(tx, code, now)

    def set_tally_hidden(self, code: str, hidden: bool, now: int) -> Stored:
        """Hide the live tally until the reveal, or show it again."""
        with self.db.write() as tx:
            row = tx.one(
                "UPDATE classes SET tally_hidden = ? WHERE code = ? AND expires_at > ?"
                " RETURNING code",
                (int(hidden), code, now),
            )
            if row is None:
                raise UnknownClass(code)
            return self._found(tx, code, now)

    def remove(self, code: str, learner: str, now: int) -> tuple[Stored, int]:
        """Delete a learner's predictions on every question of the class: (the class, how
        many went). They are then new to the class: refused while it is locked."""
        with self.db.write() as tx:
            # Hold the class's row, as the reveal does, so a submission from this learner
            # under way is either removed with the rest or sees the removal.
            row = tx.one(
                "UPDATE classes SET locked = locked WHERE code = ? AND expires_at > ?"
                " RETURNING code",
                (code, now),
            )
            if row is None:
                raise UnknownClass(code)
            gone = tx.rows(
                "DELETE FROM predictions WHERE code = ? AND learner = ? RETURNING question",
                (code, learner),
            )
            if not gone:
                raise UnknownLearner(code)
            return self._found(tx, code, now), len(gone)

    def with_short_id(self, code: str, short: str) -> list[str]:
        """The class's learners whose id starts with `short` (the dashboard's short id)."""
        with self.db.read() as tx:
            rows = tx.rows(
                "SELECT DISTINCT learner FROM predictions"
                " WHERE code = ? AND substr(learner, 1, ?) = ?",
                (code, len(short), short),
            )
        return [str(r[0]) for r in rows]

    def learners(self, code: str, now: int, most: int) -> Learners | None:
        """The class's learners, those with a prediction on the current question first,
        each once, at most `most` of them; None: no such class."""
        with self.db.read() as tx:
            stored = self._find(tx, code, now)
            if stored is None:
                return None
            total = tx.one(
                "SELECT COUNT(DISTINCT learner) FROM predictions WHERE code = ?", (code,)
            )
            rows = tx.rows(
                "SELECT l.learner, p.intervention, p.faster, p.kept"
                " FROM (SELECT DISTINCT learner FROM predictions WHERE code = ?) l"
                " LEFT JOIN predictions p"
                " ON p.code = ? AND p.question = ? AND p.learner = l.learner"
                " ORDER BY CASE WHEN p.intervention IS NULL THEN 1 ELSE 0 END, l.learner"
                " LIMIT ?",
                (code, code, stored.question, most),
            )
        listed = tuple(
            Learner(str(r[0]), None if r[1] is None else str(r[1]), _said(r[2]), _said(r[3]))
            for r in rows
        )
        return Learners(int(total[0]) if total else 0, listed)

    def _found(self, tx: Transaction, code: str, now: int) -> Stored:
        stored = self._find(tx, code, now)
        if stored is None:
            raise UnknownClass(code)
        return stored

    def submit(
        self,
        code: str,
        learner: str,
        question: str,
        intervention: str,
        faster: bool | None,
        kept: bool | None,
        now: float,
        limits: Limits,
    ) -> tuple[int, bool]:
        """Record (or replace) a learner's prediction: (learners answered, replaced an earlier
        one). Whatever refuses it rolls the whole transaction back, its counts included."""
        window, second = limits.window_of(now), int(now)
        with self.db.write() as tx:
            # First what needs no lock on the class: the learner's own window, and the count
            # the class's capacity is checked against (a bound, not a tally: unlocked).
            mine = tx.one(
                "INSERT INTO learner_windows (code, learner, window_start, n) VALUES (?, ?, ?, 1)"
                " ON CONFLICT (code, learner) DO UPDATE SET"
                " n = CASE WHEN learner_windows.window_start = excluded.window_start"
                " THEN learner_windows.n + 1 ELSE 1 END,"
                " window_start = excluded.window_start RETURNING n",
                (code, learner, window),
            )
            # The class's count in this window is the sum of its learners' (no row of its own,
            # which every submission would have to update).
            in_class = tx.one(
                "SELECT SUM(n) FROM learner_windows WHERE code = ? AND window_start = ?",
                (code, window),
            )
            # Then the class's row, held until commit against a reveal, a lock or a removal
            # (see the module's note); what is read after it sees what they committed.
            row = tx.one(
                "SELECT question, locked FROM classes WHERE code = ? AND expires_at > ?"
                + self.db.dialect.for_share,
                (code, second),
            )
            if row is None:
                raise UnknownClass(code)
            current = str(row[0])
            class_count = int(in_class[0] or 0) if in_class else 0
            if question != current:
                if tx.one(_REVEALED, (code, question)):
                    raise AlreadyRevealed(question)
                raise QuestionMoved(question, current)
            if class_count > limits.per_class:
                raise RateLimited("submissions to this class", limits.retry_after(now))
            if mine is not None and int(mine[0]) > limits.learner:
                raise RateLimited("submissions from this learner", limits.retry_after(now))
            if row[1] and not tx.one(
                "SELECT 1 FROM predictions WHERE code = ? AND learner = ? LIMIT 1",
                (code, learner),
            ):
                raise ClassLocked(code)  # new to the class, which is closed to new learners
            counts = tx.one(
                "SELECT COUNT(*), COUNT(CASE WHEN learner = ? THEN 1 END) FROM predictions"
                " WHERE code = ? AND question = ?",
                (learner, code, question),
            )
            answered, replaced = (int(counts[0]), bool(counts[1])) if counts else (0, False)
            if not replaced:
                # New to the question: counted again under the question's lock, so that the
                # cap is exact (see the module's note).
                self._serialise(tx, "learners", code, question)
                counts = tx.one(
                    "SELECT COUNT(*), COUNT(CASE WHEN learner = ? THEN 1 END) FROM predictions"
                    " WHERE code = ? AND question = ?",
                    (learner, code, question),
                )
                answered, replaced = (int(counts[0]), bool(counts[1])) if counts else (0, False)
            if not replaced and answered >= limits.learners:
                raise ClassFull(limits.learners)
            # A statement begun after the lock: it sees a reveal committed before it.
            recorded = tx.one(
                "INSERT INTO predictions (code, question, learner, intervention, faster, kept)"
                " SELECT ?, ?, ?, ?, CAST(? AS SMALLINT), CAST(? AS SMALLINT)"
                f" WHERE NOT EXISTS ({_REVEALED})"
                " ON CONFLICT (code, question, learner) DO UPDATE SET"
                " intervention = excluded.intervention, faster = excluded.faster,"
                " kept = excluded.kept RETURNING 1",
                (code, question, learner, intervention, _flag(faster), _flag(kept))
                + (code, question),
            )
            if recorded is None:
                raise AlreadyRevealed(question)
        return answered + (0 if replaced else 1), replaced

    def tally(
        self, code: str, question: str | None, now: int
    ) -> tuple[str, bool, Counts, bool] | None:
        """(question, revealed, (intervention, faster, kept, count) rows, whether the tally
        is hidden until the reveal); None: no class."""
        with self.db.read() as tx:
            stored = self._find(tx, code, now)
            if stored is None:
                return None
            asked = question or stored.question
            revealed = tx.one(
                "SELECT 1 FROM revealed WHERE code = ? AND question = ?", (code, asked)
            )
            rows = tx.rows(
                "SELECT intervention, faster, kept, COUNT(*) FROM predictions"
                " WHERE code = ? AND question = ? GROUP BY intervention, faster, kept",
                (code, asked),
            )
        return (
            asked,
            revealed is not None,
            [(str(i), _said(f), _said(k), int(n)) for i, f, k, n in rows],
            stored.tally_hidden,
        )

    def purge(self, now: int, open_window: int) -> int:
        """Delete every expired class and all it kept, and every opening older than
        `open_window` seconds (it no longer counts); returns how many classes went."""
        expired = "SELECT code FROM classes WHERE expires_at <= ?"
        with self.db.write() as tx:
            for table in ("predictions", "revealed", "learner_windows", "openings"):
                tx.rows(f"DELETE FROM {table} WHERE code IN ({expired})", (now,))
            tx.rows("DELETE FROM openings WHERE opened_at <= ?", (now - open_window,))
            gone = tx.rows("DELETE FROM classes WHERE expires_at <= ? RETURNING code", (now,))
        return len(gone)
