"""The PostgreSQL backend (``BOT_DB_URL``): one database any number of bot processes share,
through a connection pool (psycopg 3), with full-text recall by ``tsvector``."""

from memory.postgres.store import PostgresMemoryStore

__all__ = ["PostgresMemoryStore"]
