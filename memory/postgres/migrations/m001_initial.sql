
CREATE TABLE episodes (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            team_id TEXT NOT NULL,
            channel_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            requester_id TEXT NOT NULL,
            thread_ts TEXT,
            question TEXT NOT NULL,
            answer TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            lesson TEXT,
            importance INTEGER,
            created_at timestamptz NOT NULL,
            validated_at timestamptz,
            -- Which process is reflecting on the episode, until when (see session.py).
            reflection_holder TEXT,
            reflection_until timestamptz
        );
        CREATE INDEX episodes_requester ON episodes (requester_id, created_at);
        CREATE INDEX episodes_thread ON episodes (channel_id, thread_ts);
CREATE INDEX episodes_validated ON episodes (validated_at)
    WHERE status IN ('success', 'failure');
-- The reflection queue: only the episodes waiting for a lesson or a score.
CREATE INDEX episodes_awaiting_reflection ON episodes (validated_at, id)
    WHERE (status = 'failure' AND lesson IS NULL) OR (status = 'success' AND importance IS NULL);

-- Every message the bot sent, so a reaction on it finds its exchange.
        CREATE TABLE ledger (
            channel_id TEXT NOT NULL,
            message_ts TEXT NOT NULL,
            episode_id bigint NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
            expires_at timestamptz NOT NULL,
            PRIMARY KEY (channel_id, message_ts)
        );
        CREATE INDEX ledger_episode ON ledger (episode_id);
        CREATE INDEX ledger_expiry ON ledger (expires_at);

        -- Votes still present; an episode's status is derived from them.
        CREATE TABLE votes (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            episode_id bigint NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
            voter_id TEXT NOT NULL,
            reaction TEXT NOT NULL,
            vote TEXT NOT NULL,
            at timestamptz NOT NULL,
            UNIQUE (episode_id, voter_id, reaction)
        );
        CREATE INDEX votes_voter ON votes (voter_id);

-- Keyed hashes (see memory/sql/fence.py): messages already handled, people forgotten and when.
CREATE TABLE secrets (name text PRIMARY KEY, value bytea NOT NULL);
CREATE TABLE claims (digest text PRIMARY KEY, at timestamptz NOT NULL);
CREATE INDEX claims_at ON claims (at);
CREATE TABLE forgotten (person text PRIMARY KEY, at timestamptz NOT NULL);

CREATE TABLE wisdom (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            team_id TEXT NOT NULL,
            channel_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            user_id TEXT NOT NULL,
            text TEXT NOT NULL,
            episode_count INTEGER NOT NULL,
            created_at timestamptz NOT NULL
        );
        CREATE INDEX wisdom_owner ON wisdom (user_id, team_id, channel_id, kind);

        CREATE TABLE counters (
            name TEXT PRIMARY KEY,
            value bigint NOT NULL
        );

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
