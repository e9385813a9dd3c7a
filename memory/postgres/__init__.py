"""The PostgreSQL backend: one database shared by any number of bot processes.

Selected by a ``postgresql://`` URL (``BOT_DB_URL``); full-text recall with ``tsvector``
and a GIN index; a connection pool (psycopg 3) instead of SQLite's single thread.
"""

from memory.postgres.store import PostgresMemoryStore

__all__ = ["PostgresMemoryStore"]
