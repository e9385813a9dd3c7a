
        CREATE TABLE episodes (
            id INTEGER PRIMARY KEY,
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
            created_at TEXT NOT NULL,
            validated_at TEXT
        );
        CREATE INDEX episodes_requester ON episodes (requester_id, created_at);
        CREATE INDEX episodes_thread ON episodes (channel_id, thread_ts);
        CREATE INDEX episodes_status ON episodes (status, validated_at);

        -- Every message the bot sent, so a reaction on it finds its exchange.
        CREATE TABLE ledger (
            channel_id TEXT NOT NULL,
            message_ts TEXT NOT NULL,
            episode_id INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
            expires_at TEXT NOT NULL,
            PRIMARY KEY (channel_id, message_ts)
        );
        CREATE INDEX ledger_episode ON ledger (episode_id);
        CREATE INDEX ledger_expiry ON ledger (expires_at);

        -- Votes still present; an episode's status is derived from them.
        CREATE TABLE votes (
            id INTEGER PRIMARY KEY,
            episode_id INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
            voter_id TEXT NOT NULL,
            reaction TEXT NOT NULL,
            vote TEXT NOT NULL,
            at TEXT NOT NULL,
            UNIQUE (episode_id, voter_id, reaction)
        );
        CREATE INDEX votes_voter ON votes (voter_id);

        CREATE TABLE claims (
            key TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX claims_user ON claims (user_id);
        CREATE INDEX claims_at ON claims (at);

        CREATE TABLE wisdom (
            id INTEGER PRIMARY KEY,
            team_id TEXT NOT NULL,
            channel_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            user_id TEXT NOT NULL,
            text TEXT NOT NULL,
            episode_count INTEGER NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX wisdom_owner ON wisdom (user_id, team_id, channel_id, kind);

        CREATE TABLE counters (
            name TEXT PRIMARY KEY,
            value INTEGER NOT NULL
        );

        -- Validated episodes only (rowid = episodes.id): what recall can ever find.
        CREATE VIRTUAL TABLE episodes_fts USING fts5 (
            scope, question, answer, lesson,
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        