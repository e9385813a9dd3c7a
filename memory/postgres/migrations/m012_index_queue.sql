
-- Episodes a vote took out of recall, waiting to be filed again (see postgres/fts.py).
CREATE TABLE index_queue (
    episode_id bigint PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE
);
