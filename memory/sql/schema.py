"""The tables both databases lay out alike, as both histories of migrations create them:
the same SQL but for each one's types (``SQLITE``, ``POSTGRES``). Released migrations
never change, so neither does this text."""

SQLITE = {"id": "INTEGER PRIMARY KEY", "int": "INTEGER", "time": "TEXT", "more": ""}
POSTGRES = {
    "id": "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    "int": "bigint",
    "time": "timestamptz",
    "more": """,
            -- Which process is reflecting on the episode, until when (see session.py).
            reflection_holder TEXT,
            reflection_until timestamptz""",
}

EPISODES = """CREATE TABLE episodes (
            id {id},
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
            created_at {time} NOT NULL,
            validated_at {time}{more}
        );
        CREATE INDEX episodes_requester ON episodes (requester_id, created_at);
        CREATE INDEX episodes_thread ON episodes (channel_id, thread_ts);"""

LEDGER_AND_VOTES = """-- Every message the bot sent, so a reaction on it finds its exchange.
        CREATE TABLE ledger (
            channel_id TEXT NOT NULL,
            message_ts TEXT NOT NULL,
            episode_id {int} NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
            expires_at {time} NOT NULL,
            PRIMARY KEY (channel_id, message_ts)
        );
        CREATE INDEX ledger_episode ON ledger (episode_id);
        CREATE INDEX ledger_expiry ON ledger (expires_at);

        -- Votes still present; an episode's status is derived from them.
        CREATE TABLE votes (
            id {id},
            episode_id {int} NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
            voter_id TEXT NOT NULL,
            reaction TEXT NOT NULL,
            vote TEXT NOT NULL,
            at {time} NOT NULL,
            UNIQUE (episode_id, voter_id, reaction)
        );
        CREATE INDEX votes_voter ON votes (voter_id);"""

WISDOM_AND_COUNTERS = """CREATE TABLE wisdom (
            id {id},
            team_id TEXT NOT NULL,
            channel_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            user_id TEXT NOT NULL,
            text TEXT NOT NULL,
            episode_count INTEGER NOT NULL,
            created_at {time} NOT NULL
        );
        CREATE INDEX wisdom_owner ON wisdom (user_id, team_id, channel_id, kind);

        CREATE TABLE counters (
            name TEXT PRIMARY KEY,
            value {int} NOT NULL
        );"""

ERASED_REPLIES = """-- The bot's replies to people later forgotten, as keyed hashes of channel:ts.
        CREATE TABLE erased_replies (digest TEXT PRIMARY KEY);"""

INSTALLATIONS = """-- The app's installations in workspaces and the OAuth flow's states (see
        -- memory/sql/installations.py); an empty string stands for an absent id.
        CREATE TABLE installations (
            enterprise_id TEXT NOT NULL,
            team_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            data TEXT NOT NULL,
            installed_at {time} NOT NULL,
            PRIMARY KEY (enterprise_id, team_id, user_id)
        );
        CREATE TABLE oauth_states (state TEXT PRIMARY KEY, expires_at {time} NOT NULL);"""

REASONS = """-- Why the asker 👎'd an answer, in their words (see memory/sql/episodes.py).
        ALTER TABLE episodes ADD COLUMN reason TEXT;"""

WORKSPACE_CLAIMS = """-- Each dedupe claim keeps its workspace's keyed hash, so a workspace that
        -- uninstalls the app takes its claims along (memory/sql/erasure.py).
        ALTER TABLE claims ADD COLUMN workspace TEXT;
        CREATE INDEX claims_workspace ON claims (workspace) WHERE workspace IS NOT NULL;"""

ENTERPRISE_SCOPES = """-- Each episode and note keeps its workspace's Enterprise Grid org (empty
        -- outside one, as for every row before): scopes and partition keys carry it.
        ALTER TABLE episodes ADD COLUMN enterprise_id TEXT NOT NULL DEFAULT '';
        ALTER TABLE wisdom ADD COLUMN enterprise_id TEXT NOT NULL DEFAULT '';"""

QUESTIONS = """-- Questions acknowledged and not answered yet (memory/sql/questions.py).
        CREATE TABLE questions (
            id {id},
            team_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            received_at {time} NOT NULL,
            payload TEXT NOT NULL,
            holder TEXT,
            lease_until {time} NOT NULL,
            attempts INTEGER NOT NULL
        );
        CREATE INDEX questions_lease ON questions (lease_until);
        CREATE INDEX questions_holder ON questions (holder) WHERE holder IS NOT NULL;
        CREATE INDEX questions_user ON questions (user_id);
        CREATE INDEX questions_team ON questions (team_id);"""

QUESTION_ANSWERS = """-- The exchange a kept question's answer was recorded as while it showed.
        ALTER TABLE questions ADD COLUMN episode_id {int};"""
