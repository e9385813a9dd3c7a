"""The schema, as numbered migrations applied in order when a store opens.

Several processes may start at once against one database: the first to take the
migration lock applies what is missing, in one transaction, and the others find it done.
A migration's SQL, comments included, stays as released: the ``fts.py`` they name is now
:mod:`memory.postgres.session`.
"""

from __future__ import annotations

from psycopg import AsyncConnection
from psycopg.rows import DictRow

from memory.sql import schema

_MIGRATION_LOCK = 0x6D69_6772  # the advisory lock key held while migrating ("migr")

M001_INITIAL = f"""
{schema.EPISODES.format(**schema.POSTGRES)}
CREATE INDEX episodes_validated ON episodes (validated_at)
    WHERE status IN ('success', 'failure');
-- The reflection queue: only the episodes waiting for a lesson or a score.
CREATE INDEX episodes_awaiting_reflection ON episodes (validated_at, id)
    WHERE (status = 'failure' AND lesson IS NULL) OR (status = 'success' AND importance IS NULL);

{schema.LEDGER_AND_VOTES.format(**schema.POSTGRES)}

-- Keyed hashes (see memory/sql/fence.py): messages already handled, people forgotten and when.
CREATE TABLE secrets (name text PRIMARY KEY, value bytea NOT NULL);
CREATE TABLE claims (digest text PRIMARY KEY, at timestamptz NOT NULL);
CREATE INDEX claims_at ON claims (at);
CREATE TABLE forgotten (person text PRIMARY KEY, at timestamptz NOT NULL);

{schema.WISDOM_AND_COUNTERS.format(**schema.POSTGRES)}

-- Periodic jobs: which process runs one next, and not before when (see store.py).
CREATE TABLE job_turns (name text PRIMARY KEY, until timestamptz NOT NULL);

-- The full-text index (see fts.py): one row per validated episode and partition, each
-- word written <partition>_<stem>, with its position and the weight of its field.
CREATE FUNCTION memory_stem(word text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN coalesce((ts_lexize('english_stem', word))[1], word);
CREATE FUNCTION memory_words(partition text, words text[], weight text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
        SELECT coalesce(
            string_agg(
                quote_literal(partition || '_' || memory_stem(w)) || ':' || least(n, 16383)
                    || weight,
                ' '
            ),
            ''
        )::tsvector
        FROM unnest(words) WITH ORDINALITY AS t (w, n);
    END;
CREATE TABLE episode_terms (
    episode_id bigint NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
    partition text NOT NULL,
    doc tsvector NOT NULL,
    PRIMARY KEY (episode_id, partition)
);
CREATE INDEX episode_terms_doc ON episode_terms USING gin (doc);
"""

M003_RECALL_VECTORS = """
CREATE TABLE episode_vectors (
    partition text NOT NULL,
    episode_id bigint NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
    vector bytea NOT NULL,
    PRIMARY KEY (partition, episode_id)
);
CREATE INDEX episode_vectors_episode ON episode_vectors (episode_id);
"""

M004_COUNTER_SHARDS = """
-- Counts go to a row per shard (see session.py): every recall of every replica added one to
-- the same row of counters, each waiting for the one before to commit. Counters keeps what
-- was counted before, and what replicas of the previous version count during a rolling
-- upgrade; the two are summed when read.
CREATE TABLE counter_shards (
    name text NOT NULL,
    shard integer NOT NULL,
    value bigint NOT NULL,
    PRIMARY KEY (name, shard)
);
"""

M010_ONE_RECALL_ROW = """
-- What recall reads of a validated episode, in one row (see fts.py): the partitions it is
-- recalled from, its words and its vector. It replaces episode_terms, whose words each
-- carried their partition's key (a GIN index of an entry per partition and word: 2.5 GB of
-- the 5.3 GB a million episodes took), and episode_vectors, both a row per partition.
CREATE FUNCTION memory_doc(words text[], weight text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
        SELECT coalesce(
            string_agg(quote_literal(memory_stem(w)) || ':' || least(n, 16383) || weight, ' '),
            ''
        )::tsvector
        FROM unnest(words) WITH ORDINALITY AS t (w, n);
    END;
CREATE TABLE episode_recall (
    episode_id bigint PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE,
    partitions text[] NOT NULL,
    doc tsvector NOT NULL,
    vector bytea
);
-- A recall reads its partitions' rows from this index: fastupdate off, so no query scans
-- a list of pending entries.
CREATE INDEX episode_recall_partitions ON episode_recall USING gin (partitions)
    WITH (fastupdate = off);
INSERT INTO episode_recall (episode_id, partitions, doc, vector)
SELECT terms.episode_id, terms.partitions,
    coalesce(
        (SELECT string_agg(
            quote_literal(substr(lexeme, strpos(lexeme, '_') + 1)) || coalesce(
                ':' || nullif(array_to_string(
                    ARRAY(SELECT p || w FROM unnest(positions, weights) AS x (p, w)), ','
                ), ''),
                ''
            ),
            ' '
        ) FROM unnest(terms.doc)),
        ''
    )::tsvector,
    (SELECT v.vector FROM episode_vectors AS v WHERE v.episode_id = terms.episode_id LIMIT 1)
FROM (
    SELECT episode_id, array_agg(partition ORDER BY partition) AS partitions,
        (array_agg(doc))[1] AS doc
    FROM episode_terms GROUP BY episode_id
) AS terms;
DROP TABLE episode_terms;
DROP TABLE episode_vectors;
DROP FUNCTION memory_words;
"""

M012_INDEX_QUEUE = """
-- Episodes a vote took out of recall, waiting to be filed again (see postgres/fts.py).
CREATE TABLE index_queue (
    episode_id bigint PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE
);
"""

MIGRATIONS: list[tuple[str, str]] = [
    ("m001_initial", M001_INITIAL),
    ("m002_erased_replies", schema.ERASED_REPLIES),
    ("m003_recall_vectors", M003_RECALL_VECTORS),
    ("m004_counter_shards", M004_COUNTER_SHARDS),
    ("m005_installations", schema.INSTALLATIONS.format(**schema.POSTGRES)),
    ("m006_reasons", schema.REASONS),
    ("m007_workspace_claims", schema.WORKSPACE_CLAIMS),
    ("m008_enterprise_scopes", schema.ENTERPRISE_SCOPES),
    ("m009_questions", schema.QUESTIONS.format(**schema.POSTGRES)),
    ("m010_one_recall_row", M010_ONE_RECALL_ROW),
    ("m011_question_answers", schema.QUESTION_ANSWERS.format(**schema.POSTGRES)),
    ("m012_index_queue", M012_INDEX_QUEUE),
]
"""(name, SQL) in the order they apply; a name, once released, never changes."""


async def apply_migrations(conn: AsyncConnection[DictRow]) -> None:
    """Apply the migrations this database lacks, in one transaction, under the lock."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", [_MIGRATION_LOCK])
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS memory_migrations"
            " (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        cursor = await conn.execute("SELECT name FROM memory_migrations")
        applied = {row["name"] for row in await cursor.fetchall()}
        for name, sql in MIGRATIONS:
            if name not in applied:
                await conn.execute(sql)  # type: ignore[arg-type]
                await conn.execute("INSERT INTO memory_migrations (name) VALUES (%s)", [name])
