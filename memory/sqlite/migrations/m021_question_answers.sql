-- The exchange a kept question's answer was recorded as while it showed.
        ALTER TABLE questions ADD COLUMN episode_id INTEGER;