
        CREATE TABLE episode_vectors (
            partition TEXT NOT NULL,
            episode_id INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
            vector BLOB NOT NULL,
            PRIMARY KEY (partition, episode_id)
        ) WITHOUT ROWID;
        CREATE INDEX episode_vectors_episode ON episode_vectors (episode_id);
        