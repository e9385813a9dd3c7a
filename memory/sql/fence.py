"""The erasure fence, and the keyed hashes that let records outlive ``/forget``: when a person
or a workspace was forgotten, the bot's replies to them, the messages handled
(memory/README.md, *The erasure fence*)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from memory.sql.session import Session

_BATCH = 1_000  # messages one statement records (either database takes many more parameters)


def workspace_subject(team_id: str) -> str:
    """The fence's subject for a workspace (a person's, their user id, never has the separator)."""
    return f"workspace\x1f{team_id}"


def _digests(db: Session, user_id: str, team_id: str | None) -> list[str]:
    """Digests of the subjects whose erasure fences off work about ``user_id`` in ``team_id``."""
    subjects = [user_id] if not team_id else [user_id, workspace_subject(team_id)]
    return [db.digest(subject) for subject in subjects]


async def claim(db: Session, *keys: str, at: datetime, team_id: str | None = None) -> bool:
    """One ``INSERT ... ON CONFLICT DO NOTHING``: of two processes claiming a message at once,
    the second waits for the first to commit and inserts nothing; sorted, it cannot deadlock."""
    digests = sorted({db.digest(key) for key in keys})
    if not digests:
        return True
    workspace = db.digest(workspace_subject(team_id)) if team_id else None
    new = await db.execute(
        "INSERT INTO claims (digest, at, workspace) VALUES "
        + ", ".join(["(%s, %s, %s)"] * len(digests))
        + " ON CONFLICT (digest) DO NOTHING",
        [value for digest in digests for value in (digest, at, workspace)],
    )
    return new == len(digests)


async def record_forgetting(db: Session, subject: str, at: datetime) -> None:
    await db.execute(
        "INSERT INTO forgotten (person, at) VALUES (%s, %s)"
        " ON CONFLICT (person) DO UPDATE SET at = excluded.at WHERE excluded.at > forgotten.at",
        [db.digest(subject), at],
    )


def _message_key(channel_id: str, ts: str) -> str:
    return f"{channel_id}:{ts}"


async def erase_replies(db: Session, channel_id: str, message_ts: Iterable[str]) -> None:
    await erase_messages(db, [(channel_id, ts) for ts in message_ts])


async def erase_messages(db: Session, messages: Iterable[tuple[str, str]]) -> None:
    """:func:`erase_replies` of (channel, ts) in any channels, in one order: two erasures at
    once on PostgreSQL cannot each wait for the other's."""
    digests = sorted({db.digest(_message_key(channel_id, ts)) for channel_id, ts in messages})
    for start in range(0, len(digests), _BATCH):
        batch = digests[start : start + _BATCH]
        await db.execute(
            f"INSERT INTO erased_replies (digest) VALUES {', '.join('(%s)' for _ in batch)}"
            " ON CONFLICT (digest) DO NOTHING",
            batch,
        )


async def erased_replies(db: Session, channel_id: str, message_ts: Iterable[str]) -> set[str]:
    by_digest = {db.digest(_message_key(channel_id, ts)): ts for ts in set(message_ts)}
    if not by_digest:
        return set()
    member, digests = db.one_of(list(by_digest))
    rows = await db.rows(f"SELECT digest FROM erased_replies WHERE digest {member}", [digests])
    return {by_digest[row["digest"]] for row in rows}


def not_forgotten_since(
    db: Session, user_id: str, started_at: datetime, team_id: str | None = None
) -> tuple[str, list[Any]]:
    """The condition that neither the person nor their workspace was forgotten since
    ``started_at``, and its parameters: a write it guards sees an erasure its lock waited for."""
    digests = _digests(db, user_id, team_id)
    marks = ", ".join("%s" for _ in digests)  # one or two: no list parameter needed
    return (
        f"NOT EXISTS (SELECT 1 FROM forgotten WHERE person IN ({marks}) AND at >= %s)",
        [*digests, started_at],
    )


async def forgotten_since(
    db: Session, user_id: str, started_at: datetime, team_id: str | None = None
) -> bool:
    condition, params = not_forgotten_since(db, user_id, started_at, team_id)
    [row] = await db.rows(f"SELECT {condition} AS unforgotten", params)
    return not row["unforgotten"]


def forgotten_read(
    db: Session, user_ids: Iterable[str], team_id: str | None = None
) -> tuple[str, list[Any]]:
    """The read of :func:`forgotten_at`, sent with others; its rows go to :func:`forgotten_from`."""
    digests = {digest for user_id in user_ids for digest in _digests(db, user_id, team_id)}
    member, param = db.one_of(list(digests))
    return f"SELECT person, at FROM forgotten WHERE person {member}", [param]


def forgotten_from(
    db: Session, user_ids: Iterable[str], found: list[dict[str, Any]], team_id: str | None = None
) -> dict[str, datetime]:
    erased = {row["person"]: db.read_time(row["at"]) for row in found}
    return {
        user_id: max(times)
        for user_id in set(user_ids)
        if (times := [erased[d] for d in _digests(db, user_id, team_id) if d in erased])
    }


async def forgotten_at(
    db: Session, user_ids: Iterable[str], team_id: str | None = None
) -> dict[str, datetime]:
    people = set(user_ids)
    found = await db.rows(*forgotten_read(db, people, team_id)) if people else []
    return forgotten_from(db, people, found, team_id)
