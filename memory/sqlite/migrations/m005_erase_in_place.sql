INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('secure-delete', 1);
CREATE INDEX episodes_awaiting_reflection ON episodes (validated_at, id) WHERE (status = 'failure' AND lesson IS NULL) OR (status = 'success' AND importance IS NULL);
