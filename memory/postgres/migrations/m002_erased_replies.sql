-- The bot's replies to people later forgotten, as keyed hashes of channel:ts.
        CREATE TABLE erased_replies (digest TEXT PRIMARY KEY);