"""The schema, as numbered migrations applied in order when a store opens."""

from __future__ import annotations

import secrets

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from memory.sql import schema
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
CREATE_INDEX_QUEUE = """
CREATE TABLE index_queue (
    episode_id INTEGER PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE
)
"""

migrations = Migrations("memory")


def _create_index(db: Database) -> None:
    """Create the (empty) index, deleting in place, its upkeep's merges taking two segments
    of one level (FTS5's default is four)."""
    db.execute(
        "CREATE VIRTUAL TABLE episodes_fts USING fts5"
        f" (question, answer, lesson, content = '', tokenize = \"{TOKENIZE}\")"
    )
    db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('secure-delete', 1)")
    db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('usermerge', 2)")


@migrations()
def m001_initial(db: Database) -> None:
    db.executescript(
        f"""
        {schema.EPISODES.format(**schema.SQLITE)}
        CREATE INDEX episodes_status ON episodes (status, validated_at);

        {schema.LEDGER_AND_VOTES.format(**schema.SQLITE)}

        CREATE TABLE claims (
            key TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX claims_user ON claims (user_id);
        CREATE INDEX claims_at ON claims (at);

        {schema.WISDOM_AND_COUNTERS.format(**schema.SQLITE)}

        -- Validated episodes only (rowid = episodes.id): what recall can ever find.
        CREATE VIRTUAL TABLE episodes_fts USING fts5 (
            scope, question, answer, lesson,
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        """
    )


@migrations()
def m002_partitioned_index(db: Database) -> None:
    """An entry per partition and word (``<key>_<word>``) instead of a scope column."""
    db.execute("DROP TABLE episodes_fts")
    db.execute(
        "CREATE VIRTUAL TABLE episodes_fts USING fts5"
        f' (question, answer, lesson, tokenize = "{TOKENIZE}")'
    )
    index_validated(db, vectors=False)


@migrations()
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


@migrations()
def m005_erase_in_place(db: Database) -> None:
    """The index deletes in place (see :mod:`memory.sqlite.fts`); the reflection queue is
    indexed."""
    db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('secure-delete', 1)")
    db.execute(
        "CREATE INDEX episodes_awaiting_reflection ON episodes (validated_at, id)"
        " WHERE (status = 'failure' AND lesson IS NULL)"
        " OR (status = 'success' AND importance IS NULL)"
    )


@migrations()
def m006_erased_replies(db: Database) -> None:
    db.execute(schema.ERASED_REPLIES)


@migrations()
def m007_contentless_index(db: Database) -> None:
    """The index keeps no copy of its text; the old table's freed pages are zeroed."""
    db.execute("DROP TABLE episodes_fts")
    _create_index(db)
    index_validated(db, vectors=False)


@migrations()
def m008_recall_vectors(db: Database) -> None:
    """Semantic recall's vectors (computed by :func:`m010_lean_index`, in a leaner table)."""
    db.executescript(
        """
        CREATE TABLE episode_vectors (
            partition TEXT NOT NULL,
            episode_id INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
            vector BLOB NOT NULL,
            PRIMARY KEY (partition, episode_id)
        ) WITHOUT ROWID;
        CREATE INDEX episode_vectors_episode ON episode_vectors (episode_id);
        """
    )


@migrations()
def m009_dated_recall(db: Database) -> None:
    """The day asked is indexed too, by :func:`m010_lean_index`'s rebuild."""


@migrations()
def m010_lean_index(db: Database) -> None:
    """The index and vectors rebuilt leaner: no words a query never asks for
    (:func:`memory.recall_query.indexed_words`), partitions numbered, no second index."""
    db.execute("DROP TABLE episodes_fts")
    db.execute("DROP TABLE episode_vectors")
    _create_index(db)
    db.executescript(CREATE_VECTORS)
    index_validated(db, vectors=True)


@migrations()
def m011_lean_queues(db: Database) -> None:
    """Successes wait for a score in ``score_queue`` (see
    :meth:`memory.sqlite.session.SQLiteSession.restating`), not in the reflection queue's
    index; the thread index leaves out the episodes asked outside any thread."""
    db.executescript(
        """
        DROP INDEX episodes_awaiting_reflection;
        CREATE INDEX episodes_awaiting_lesson ON episodes (validated_at, id)
            WHERE status = 'failure' AND lesson IS NULL;
        CREATE TABLE score_queue (
            episode_id INTEGER PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE
        );
        DROP INDEX episodes_thread;
        CREATE INDEX episodes_thread ON episodes (channel_id, thread_ts)
            WHERE thread_ts IS NOT NULL;
        """
    )


@migrations()
def m012_index_queue(db: Database) -> None:
    """The episodes a vote left to be filed later (see :mod:`memory.sqlite.fts`)."""
    db.execute(CREATE_INDEX_QUEUE)


@migrations()
def m013_index_upkeep(db: Database) -> None:
    """The upkeep merges segments two at a time (:func:`memory.sqlite.fts.tidy_index`)."""
    db.execute("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('usermerge', 2)")


def _compact_time(text: str | None) -> str | None:
    return None if text is None else to_db_time(from_db_time(text))


@migrations()
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


@migrations()
def m015_channel_partitions_state(db: Database) -> None:
    """Whether channel successes are filed in their channel's partition too (see
    :func:`memory.sqlite.fts.align_channel_partitions`): so far they all were."""
    db.executescript(
        """
        CREATE TABLE index_state (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO index_state (name, value) VALUES ('channel_partitions', 1);
        """
    )


@migrations()
def m016_installations(db: Database) -> None:
    db.executescript(schema.INSTALLATIONS.format(**schema.SQLITE))


@migrations()
def m017_reasons(db: Database) -> None:
    db.execute(schema.REASONS)


@migrations()
def m018_workspace_claims(db: Database) -> None:
    """Older claims hold no workspace, and stay until the ledger's upkeep drops them."""
    db.executescript(schema.WORKSPACE_CLAIMS)


@migrations()
def m019_enterprise_scopes(db: Database) -> None:
    """Partition keys without an org are those they were (see :mod:`memory.privacy`)."""
    db.executescript(schema.ENTERPRISE_SCOPES)


@migrations()
def m020_questions(db: Database) -> None:
    db.executescript(schema.QUESTIONS.format(**schema.SQLITE))


@migrations()
def m021_question_answers(db: Database) -> None:
    db.execute(schema.QUESTION_ANSWERS.format(**schema.SQLITE))
