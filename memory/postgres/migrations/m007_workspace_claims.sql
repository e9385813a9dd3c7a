-- Each dedupe claim keeps its workspace's keyed hash, so a workspace that
        -- uninstalls the app takes its claims along (memory/sql/erasure.py).
        ALTER TABLE claims ADD COLUMN workspace TEXT;
        CREATE INDEX claims_workspace ON claims (workspace) WHERE workspace IS NOT NULL;