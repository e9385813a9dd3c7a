-- Each episode and note keeps its workspace's Enterprise Grid org (empty
        -- outside one, as for every row before): scopes and partition keys carry it.
        ALTER TABLE episodes ADD COLUMN enterprise_id TEXT NOT NULL DEFAULT '';
        ALTER TABLE wisdom ADD COLUMN enterprise_id TEXT NOT NULL DEFAULT '';