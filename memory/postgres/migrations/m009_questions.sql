-- Questions acknowledged and not answered yet (memory/sql/questions.py).
        CREATE TABLE questions (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            team_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            received_at timestamptz NOT NULL,
            payload TEXT NOT NULL,
            holder TEXT,
            lease_until timestamptz NOT NULL,
            attempts INTEGER NOT NULL
        );
        CREATE INDEX questions_lease ON questions (lease_until);
        CREATE INDEX questions_holder ON questions (holder) WHERE holder IS NOT NULL;
        CREATE INDEX questions_user ON questions (user_id);
        CREATE INDEX questions_team ON questions (team_id);