
        DROP INDEX episodes_awaiting_reflection;
        CREATE INDEX episodes_awaiting_lesson ON episodes (validated_at, id)
            WHERE status = 'failure' AND lesson IS NULL;
        CREATE TABLE score_queue (
            episode_id INTEGER PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE
        );
        DROP INDEX episodes_thread;
        CREATE INDEX episodes_thread ON episodes (channel_id, thread_ts)
            WHERE thread_ts IS NOT NULL;
        