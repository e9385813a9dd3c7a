
CREATE TABLE episode_vectors (
    partition text NOT NULL,
    episode_id bigint NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
    vector bytea NOT NULL,
    PRIMARY KEY (partition, episode_id)
);
CREATE INDEX episode_vectors_episode ON episode_vectors (episode_id);
