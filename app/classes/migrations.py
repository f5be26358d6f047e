"""The class database's schema, as numbered migrations applied in order from an empty one.

`schema_version` records each migration applied (its number and when). `migrate` applies
the ones a database lacks, each in its own transaction, and is a no-op on a database that
has them all; a new migration is appended to `MIGRATIONS`, never an old one edited. Every
statement runs unchanged on SQLite and PostgreSQL.

Two processes starting at once (uvicorn's workers) may both try a migration: each first
inserts the migration's row into `schema_version`, whose primary key lets one of them
through; the other waits for it, gets a unique-key error, rolls back, and finds the
migration applied when it looks again.

What is kept (docs/classroom.md): per class its code, the SHA-256 of its host key, its
current question, whether it is closed to new learners, when it was opened and when it
expires; the questions revealed; per
(class, question, learner id) the prediction (intervention, faster, kept: 1, 0 or NULL); per
(class, learner id) the learner's current rate-limit window; per class opened lately, the
SHA-256 of the client address that opened it (the opening limit is counted per address),
deleted once it no longer counts. No names, plain addresses or user agents; every row of a
class goes when the class expires.
"""

from __future__ import annotations

import time

from app.classes.database import Database

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: classes, their revealed questions, the predictions, the learners' rate-limit windows.
    (
        """CREATE TABLE classes (
            code TEXT PRIMARY KEY,
            host_hash TEXT NOT NULL,
            question TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        )""",
        "CREATE INDEX classes_expiry ON classes (expires_at)",
        "CREATE INDEX classes_created ON classes (created_at)",
        """CREATE TABLE revealed (
            code TEXT NOT NULL,
            question TEXT NOT NULL,
            PRIMARY KEY (code, question)
        )""",
        """CREATE TABLE predictions (
            code TEXT NOT NULL,
            question TEXT NOT NULL,
            learner TEXT NOT NULL,
            intervention TEXT NOT NULL,
            faster SMALLINT,
            kept SMALLINT,
            PRIMARY KEY (code, question, learner)
        )""",
        """CREATE TABLE learner_windows (
            code TEXT NOT NULL,
            learner TEXT NOT NULL,
            window_start BIGINT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (code, learner)
        )""",
    ),
    # 2: who opened each class lately, so the opening limit is counted per client address
    # (the SHA-256 of the address, kept only while it counts: `ClassStore.purge`).
    (
        """CREATE TABLE openings (
            code TEXT PRIMARY KEY,
            opener TEXT NOT NULL,
            opened_at BIGINT NOT NULL
        )""",
        "CREATE INDEX openings_opener ON openings (opener, opened_at)",
    ),
    # 3: a class the instructor has closed to new learners; a learner's predictions in a
    # class, found at once (whether they are in it, and removing them).
    (
        "ALTER TABLE classes ADD COLUMN locked SMALLINT NOT NULL DEFAULT 0",
        "CREATE INDEX predictions_learner ON predictions (code, learner)",
    ),
    # 4: the instructor hides the live tally until the reveal (the projector shows only how
    # many have answered).
    ("ALTER TABLE classes ADD COLUMN tally_hidden SMALLINT NOT NULL DEFAULT 0",),
)

VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    applied_at BIGINT NOT NULL
)"""


def applied(db: Database) -> list[int]:
    with db.read() as tx:
        return [int(r[0]) for r in tx.rows("SELECT version FROM schema_version ORDER BY version")]


def migrate(db: Database) -> list[int]:
    """Apply what is missing; return the versions this call applied (none when up to date)."""
    _version_table(db)
    done: list[int] = []
    for version, statements in enumerate(MIGRATIONS, start=1):
        if version in applied(db):
            continue
        try:
            with db.write() as tx:
                tx.rows(
                    "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                    (version, int(time.time())),
                )
                for statement in statements:
                    tx.rows(statement)
        except db.dialect.integrity:
            continue  # another process applied it first (see the module's note)
        done.append(version)
    return done


def _version_table(db: Database) -> None:
    try:
        with db.write() as tx:
            tx.rows(VERSION_TABLE)
    except db.dialect.exists:
        # PostgreSQL's IF NOT EXISTS can still collide with a concurrent CREATE on its
        # catalogue (app.classes.database, `exists`); the table exists either way.
        pass
