"""The erasure fence, and the keyed hashes that let records outlive ``/forget``.

Forgetting a person deletes everything about them, but two facts must outlive it:

- *that* they were forgotten, and when, so work that started before (an answer being
  written, a consolidation) cannot write about them afterwards, and so conversation
  history read back from Slack can leave out what they said before;
- which messages were already answered, so a Slack retry is not answered again;
- which of the bot's messages answered them, so history read back from Slack leaves those
  out too (whoever asks next in the thread, whenever the reply was posted).

Both are kept as HMAC-SHA256 digests under a secret generated for this database (the
``secrets`` table): the file holds no user id and no event id in the clear, and a digest
cannot be matched against a list of ids without the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from datetime import datetime
from weakref import WeakKeyDictionary

from sqlite_utils import Database

from memory.sqlite.codec import from_db_time, to_db_time
from memory.subjects import fence_subjects, latest_erasures

__all__ = [
    "create_secret",
    "digest",
    "erase_replies",
    "erased_replies",
    "forgotten_at",
    "forgotten_since",
    "record_forgetting",
]

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


def record_forgetting(db: Database, subject: str, at: datetime) -> None:
    """Record that the subject (a person, or a workspace: :mod:`memory.subjects`) was
    forgotten at ``at`` (the latest time wins)."""
    db.execute(
        "INSERT INTO forgotten (person, at) VALUES (?, ?)"
        " ON CONFLICT (person) DO UPDATE SET at = max(at, excluded.at)",
        [digest(db, subject), to_db_time(at)],
    )


def _message_key(channel_id: str, ts: str) -> str:
    return f"{channel_id}:{ts}"


def erase_replies(db: Database, channel_id: str, message_ts: Iterable[str]) -> None:
    """Record that these messages of the bot answered someone since forgotten."""
    for ts in message_ts:
        db.execute(
            "INSERT OR IGNORE INTO erased_replies (digest) VALUES (?)",
            [digest(db, _message_key(channel_id, ts))],
        )


def erased_replies(db: Database, channel_id: str, message_ts: Iterable[str]) -> set[str]:
    """Which of these messages of the bot answered someone since forgotten."""
    by_digest = {digest(db, _message_key(channel_id, ts)): ts for ts in set(message_ts)}
    if not by_digest:
        return set()
    marks = ", ".join("?" for _ in by_digest)
    rows = db.query(f"SELECT digest FROM erased_replies WHERE digest IN ({marks})", list(by_digest))
    return {by_digest[row["digest"]] for row in rows}


def forgotten_since(
    db: Database, user_id: str, started_at: datetime, team_id: str | None = None
) -> bool:
    """Whether the person (or their workspace ``team_id``) was forgotten at or after
    ``started_at``: work that began then must not write about them."""
    digests = [digest(db, subject) for subject in fence_subjects(user_id, team_id)]
    marks = ", ".join("?" for _ in digests)
    row = db.conn.execute(
        f"SELECT 1 FROM forgotten WHERE person IN ({marks}) AND at >= ?",
        [*digests, to_db_time(started_at)],
    ).fetchone()
    return row is not None


def forgotten_at(
    db: Database, user_ids: Iterable[str], team_id: str | None = None
) -> dict[str, datetime]:
    """When each of these people was last forgotten, or their workspace ``team_id`` was
    (absent: never)."""
    people = set(user_ids)
    by_digest = {
        digest(db, subject): subject
        for user_id in people
        for subject in fence_subjects(user_id, team_id)
    }
    if not by_digest:
        return {}
    marks = ", ".join("?" for _ in by_digest)
    rows = db.query(f"SELECT person, at FROM forgotten WHERE person IN ({marks})", list(by_digest))
    erased = {by_digest[row["person"]]: from_db_time(row["at"]) for row in rows}
    return latest_erasures(people, team_id, erased)
