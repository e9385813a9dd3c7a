-- Why the asker 👎'd an answer, in their words (see memory/sql/episodes.py).
        ALTER TABLE episodes ADD COLUMN reason TEXT;