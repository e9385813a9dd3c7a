"""This database's digest secret, and the keyed hashes under it (see
:mod:`memory.sql.fence`): the file holds no user id and no event id in the clear.

The secret is generated once, by a migration, and kept in the ``secrets`` table.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from weakref import WeakKeyDictionary

from sqlite_utils import Database

_SECRET_NAME = "digests"
_secrets: WeakKeyDictionary[Database, bytes] = WeakKeyDictionary()


def create_secret(db: Database) -> None:
    """Create this database's digest secret (a migration does, once)."""
    db.execute(
        "INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)",
        [_SECRET_NAME, secrets.token_bytes(32)],
    )


def _secret(db: Database) -> bytes:
    """This database's secret, read once per connection (it never changes)."""
    secret = _secrets.get(db)
    if secret is None:
        [secret] = db.conn.execute(
            "SELECT value FROM secrets WHERE name = ?", [_SECRET_NAME]
        ).fetchone()
        _secrets[db] = secret
    return secret


def digest(db: Database, text: str) -> str:
    """The keyed hash of ``text`` under this database's secret, in hex."""
    return hmac.new(_secret(db), text.encode(), hashlib.sha256).hexdigest()
