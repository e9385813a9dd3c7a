
        CREATE TABLE index_state (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO index_state (name, value) VALUES ('channel_partitions', 1);
        