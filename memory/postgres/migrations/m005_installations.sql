-- The app's installations in workspaces and the OAuth flow's states (see
        -- memory/sql/installations.py); an empty string stands for an absent id.
        CREATE TABLE installations (
            enterprise_id TEXT NOT NULL,
            team_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            data TEXT NOT NULL,
            installed_at timestamptz NOT NULL,
            PRIMARY KEY (enterprise_id, team_id, user_id)
        );
        CREATE TABLE oauth_states (state TEXT PRIMARY KEY, expires_at timestamptz NOT NULL);