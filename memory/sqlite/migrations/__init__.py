"""The schema, as numbered migrations applied in their names' order when a store opens: the
SQL files here as released, and functions where one runs Python (memory/README.md, *Migrations*)."""

from __future__ import annotations

import secrets
from functools import partial

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from memory.sql import released_sql
from memory.sqlite.codec import from_db_time, to_db_time
from memory.sqlite.fts import TOKENIZE, index_validated
from memory.sqlite.session import SECRET_NAME, SQLiteSession

CREATE_VECTORS = """
CREATE TABLE episode_vectors (
    partition INTEGER NOT NULL,
    episode_id INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (partition, episode_id)
) WITHOUT ROWID;
"""


def _create_index(db: Database) -> None:
    """Create the (empty) index, deleting in place, its upkeep's merges taking two segments
    of one level (FTS5's default is four)."""
    db.execute(
        "CREATE VIRTUAL TABLE episodes_fts USING fts5"
        f" (question, answer, lesson, content = '', tokenize = \"{TOKENIZE}\")"
    )
    db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('secure-delete', 1)")
    db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('usermerge', 2)")


def m002_partitioned_index(db: Database) -> None:
    """An entry per partition and word (``<key>_<word>``) instead of a scope column."""
    db.execute("DROP TABLE episodes_fts")
    db.execute(
        "CREATE VIRTUAL TABLE episodes_fts USING fts5"
        f' (question, answer, lesson, tokenize = "{TOKENIZE}")'
    )
    index_validated(db, vectors=False)


def m004_erasure_fence(db: Database) -> None:
    """Who was forgotten when, and the claims as keyed hashes (:mod:`memory.sql.fence`).
    Numbered 4: 3 is the recall vectors' migration."""
    db.executescript(
        """
        CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
        CREATE TABLE forgotten (person TEXT PRIMARY KEY, at TEXT NOT NULL);
        CREATE TABLE claimed (digest TEXT PRIMARY KEY, at TEXT NOT NULL);
        CREATE INDEX claimed_at ON claimed (at);
        """
    )
    db.execute(
        "INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)",
        [SECRET_NAME, secrets.token_bytes(32)],
    )
    session = SQLiteSession(db)
    for row in list(db.query("SELECT key, at FROM claims")):
        db.execute(
            "INSERT OR IGNORE INTO claimed (digest, at) VALUES (?, ?)",
            [session.digest(row["key"]), row["at"]],
        )
    db.execute("DROP TABLE claims")
    db.execute("ALTER TABLE claimed RENAME TO claims")


def m007_contentless_index(db: Database) -> None:
    """The index keeps no copy of its text; the old table's freed pages are zeroed."""
    db.execute("DROP TABLE episodes_fts")
    _create_index(db)
    index_validated(db, vectors=False)


def m009_dated_recall(db: Database) -> None:
    """The day asked is indexed too, by :func:`m010_lean_index`'s rebuild."""


def m010_lean_index(db: Database) -> None:
    """The index and vectors rebuilt leaner: no words a query never asks for
    (:func:`memory.recall_query.indexed_words`), partitions numbered, no second index."""
    db.execute("DROP TABLE episodes_fts")
    db.execute("DROP TABLE episode_vectors")
    _create_index(db)
    db.executescript(CREATE_VECTORS)
    index_validated(db, vectors=True)


def _compact_time(text: str | None) -> str | None:
    return None if text is None else to_db_time(from_db_time(text))


def m014_compact_times(db: Database) -> None:
    """Times in 18 digits instead of ISO-8601 (:mod:`memory.sqlite.codec`)."""
    db.register_function(_compact_time, deterministic=True, name="compact_time")
    times = {
        "episodes": ("created_at", "validated_at"),
        "ledger": ("expires_at",),
        "votes": ("at",),
        "claims": ("at",),
        "forgotten": ("at",),
        "wisdom": ("created_at",),
    }
    for table, columns in times.items():
        changes = ", ".join(f"{column} = compact_time({column})" for column in columns)
        db.execute(f"UPDATE {table} SET {changes}")


SQL = released_sql(__name__)
"""The SQL of the migrations that are SQL alone, by name."""
_IN_PYTHON = {
    run.__name__: run
    for run in (
        m002_partitioned_index,
        m004_erasure_fence,
        m007_contentless_index,
        m009_dated_recall,
        m010_lean_index,
        m014_compact_times,
    )
}
migrations = Migrations("memory")
for name in sorted(_IN_PYTHON.keys() | SQL.keys()):
    migrations(name=name)(_IN_PYTHON.get(name) or partial(Database.executescript, sql=SQL[name]))
