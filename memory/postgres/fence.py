"""The erasure fence, and the keyed hashes that let records outlive ``/forget``.

As in the SQLite backend (:mod:`memory.sqlite.fence`): who was forgotten when, and which
messages were claimed, are kept as HMAC-SHA256 digests under a secret generated for this
database, so the database holds no user id and no event id in the clear.

Several processes share this database, so the fence also needs a lock: a transaction
that writes about a person (an exchange, a vote, notes) and one that forgets them take
the same transaction-level advisory lock (:func:`lock_person`) first. The writer either
commits before the erasure starts (and is erased with the rest) or sees it (and writes
nothing); without the lock, both could run at once and the write survive the erasure.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import datetime

from psycopg import AsyncConnection
from psycopg.rows import DictRow

from memory.postgres.session import Session
from memory.subjects import fence_subjects, latest_erasures, workspace_subject

__all__ = [
    "erase_replies",
    "erased_replies",
    "forgotten_at",
    "forgotten_since",
    "load_secret",
    "lock_person",
    "lock_workspace",
    "record_forgetting",
]

_SECRET_NAME = "digests"
_PERSON_LOCKS = 0x6D656D6F
"""The first key of every person's advisory lock (``memo``), apart from other locks."""
_WORKSPACE_LOCKS = 0x7465616D
"""The first key of every workspace's advisory lock (``team``)."""


async def load_secret(conn: AsyncConnection[DictRow]) -> bytes:
    """This database's digest secret, created by the first process that needs it."""
    await conn.execute(
        "INSERT INTO secrets (name, value) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING",
        [_SECRET_NAME, secrets.token_bytes(32)],
    )
    cursor = await conn.execute("SELECT value FROM secrets WHERE name = %s", [_SECRET_NAME])
    row = await cursor.fetchone()
    assert row is not None
    return bytes(row["value"])


def _lock_key(db: Session, subject: str) -> int:
    return int.from_bytes(bytes.fromhex(db.digest(subject))[:4], "big", signed=True)


async def lock_person(db: Session, user_id: str, team_id: str | None = None) -> None:
    """Hold the person's lock until the transaction ends (see the module docstring); with
    ``team_id``, their workspace's too, shared: writes in one workspace do not wait for
    each other, and an erasure of the workspace (:func:`lock_workspace`) waits for them."""
    person = _lock_key(db, user_id)
    if not team_id:
        await db.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_PERSON_LOCKS, person])
        return
    await db.execute(
        "SELECT pg_advisory_xact_lock(%s, %s), pg_advisory_xact_lock_shared(%s, %s)",
        [_PERSON_LOCKS, person, _WORKSPACE_LOCKS, _lock_key(db, workspace_subject(team_id))],
    )


async def lock_workspace(db: Session, team_id: str) -> None:
    """Hold the workspace's lock alone until the transaction ends: every write about one
    of its people that began before has committed, and none begins until this ends."""
    key = _lock_key(db, workspace_subject(team_id))
    await db.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_WORKSPACE_LOCKS, key])


async def record_forgetting(db: Session, subject: str, at: datetime) -> None:
    """Record that the subject (a person, or a workspace: :mod:`memory.subjects`) was
    forgotten at ``at`` (the latest time wins)."""
    await db.execute(
        "INSERT INTO forgotten (person, at) VALUES (%s, %s)"
        " ON CONFLICT (person) DO UPDATE SET at = greatest(forgotten.at, excluded.at)",
        [db.digest(subject), at],
    )


def _message_key(channel_id: str, ts: str) -> str:
    return f"{channel_id}:{ts}"


async def erase_replies(db: Session, channel_id: str, message_ts: Iterable[str]) -> None:
    """Record that these messages of the bot answered someone since forgotten."""
    for ts in message_ts:
        await db.execute(
            "INSERT INTO erased_replies (digest) VALUES (%s) ON CONFLICT (digest) DO NOTHING",
            [db.digest(_message_key(channel_id, ts))],
        )


async def erased_replies(db: Session, channel_id: str, message_ts: Iterable[str]) -> set[str]:
    """Which of these messages of the bot answered someone since forgotten."""
    by_digest = {db.digest(_message_key(channel_id, ts)): ts for ts in set(message_ts)}
    if not by_digest:
        return set()
    rows = await db.rows(
        "SELECT digest FROM erased_replies WHERE digest = ANY(%s)", [list(by_digest)]
    )
    return {by_digest[row["digest"]] for row in rows}


async def forgotten_since(
    db: Session, user_id: str, started_at: datetime, team_id: str | None = None
) -> bool:
    """Whether the person (or their workspace ``team_id``) was forgotten at or after
    ``started_at``: work that began then must not write about them."""
    digests = [db.digest(subject) for subject in fence_subjects(user_id, team_id)]
    row = await db.row(
        "SELECT 1 FROM forgotten WHERE person = ANY(%s) AND at >= %s", [digests, started_at]
    )
    return row is not None


async def forgotten_at(
    db: Session, user_ids: Iterable[str], team_id: str | None = None
) -> dict[str, datetime]:
    """When each of these people was last forgotten, or their workspace ``team_id`` was
    (absent: never)."""
    people = set(user_ids)
    by_digest = {
        db.digest(subject): subject
        for user_id in people
        for subject in fence_subjects(user_id, team_id)
    }
    if not by_digest:
        return {}
    rows = await db.rows(
        "SELECT person, at FROM forgotten WHERE person = ANY(%s)", [list(by_digest)]
    )
    return latest_erasures(people, team_id, {by_digest[row["person"]]: row["at"] for row in rows})
