
-- Counts go to a row per shard (see session.py): every recall of every replica added one to
-- the same row of counters, each waiting for the one before to commit. Counters keeps what
-- was counted before, and what replicas of the previous version count during a rolling
-- upgrade; the two are summed when read.
CREATE TABLE counter_shards (
    name text NOT NULL,
    shard integer NOT NULL,
    value bigint NOT NULL,
    PRIMARY KEY (name, shard)
);
