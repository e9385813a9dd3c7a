
CREATE TABLE index_queue (
    episode_id INTEGER PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE
)
