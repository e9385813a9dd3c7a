"""Exchanges, their ledger entries, and the episodes' life cycle outside voting: the reasons
their askers give for a 👎 (asked once, by a claim: memory/README.md, *The erasure fence*),
and the notes consolidation distils from them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from itertools import chain
from typing import Any

from memory import rows
from memory.config import MemoryConfig
from memory.models import (
    Episode,
    EpisodeStatus,
    ImportedEpisode,
    NewExchange,
    Scope,
    StoreStats,
    WisdomNote,
)
from memory.privacy import VALIDATED
from memory.sql.fence import claim, forgotten_since, not_forgotten_since
from memory.sql.session import LedgerParts, Params, Session, placeholders

_PENDING = EpisodeStatus.PENDING.value
_SCOPE = ("enterprise_id", "team_id", "channel_id", "kind")
_IN_SCOPE = " AND ".join(f"{column} = %s" for column in _SCOPE)
_ASKED = {"requester_id", "thread_ts", "question", "answer"}
_NOTES_OF = f"{_IN_SCOPE} AND user_id = %s"
_THEIR_FAILURE = "id = %s AND requester_id = %s AND status = 'failure'"


def _scoped(scope: Scope) -> list[str]:
    return [scope.enterprise_id, scope.team_id, scope.channel_id, scope.kind.value]


async def read_episodes(db: Session, sql: str, params: Params) -> list[Episode]:
    return [rows.episode_from_row(row, db.read_time) for row in await db.rows(sql, params)]


async def _episode(db: Session, sql: str, params: Params) -> Episode | None:
    return next(iter(await read_episodes(db, sql, params)), None)


def _unnumbered(item: NewExchange | ImportedEpisode, **fields: Any) -> Episode:
    """The episode ``item`` makes, numbered 0 until it is stored, its times in UTC."""
    common = item.model_dump(include=_ASKED)
    return Episode(id=0, scope=item.scope, created_at=rows.utc(item.created_at), **common, **fields)


def imported(item: ImportedEpisode) -> Episode:
    """The validated episode an import of ``item`` stores, numbered 0 until it is stored."""
    return _unnumbered(
        item, status=item.status, lesson=item.lesson, validated_at=rows.utc(item.validated_at)
    )


def _stored(db: Session, episode: Episode) -> tuple[dict[str, Any], tuple[str, list[Any]]]:
    """The columns storing ``episode``, and the fence's condition the insert checks itself."""
    values = {
        **dict(zip(_SCOPE, _scoped(episode.scope), strict=True)),
        **episode.model_dump(include={*_ASKED, "lesson", "created_at", "validated_at"}),
        "status": episode.status.value,
    }
    fence = not_forgotten_since(db, episode.requester_id, episode.created_at, episode.scope.team_id)
    return values, fence


async def record_exchange(
    db: Session, exchange: NewExchange, config: MemoryConfig
) -> Episode | None:
    episode = _unnumbered(exchange, status=EpisodeStatus.PENDING)
    ledger = LedgerParts(
        exchange.scope.channel_id, exchange.message_ts, episode.created_at + config.ledger_ttl
    )
    async with db.transaction():
        await db.lock_person(exchange.requester_id, exchange.scope.team_id)
        episode_id = await db.insert_exchange(*_stored(db, episode), ledger)
    return None if episode_id is None else episode.model_copy(update={"id": episode_id})


async def import_episodes(db: Session, episodes: Sequence[ImportedEpisode]) -> list[int | None]:
    """Store episodes validated elsewhere, recallable at once; their ids (None where the
    fence refused one). Askers are locked in one order: two imports cannot deadlock."""
    ids: list[int | None] = []
    async with db.transaction():
        for person, team in sorted({(item.requester_id, item.scope.team_id) for item in episodes}):
            await db.lock_person(person, team)
        for item in episodes:
            episode = imported(item)
            episode_id = await db.insert_episode(*_stored(db, episode))
            if episode_id is not None:
                await db.file_new(episode.model_copy(update={"id": episode_id}))
            ids.append(episode_id)
    return ids


_EXTENDED = "UPDATE episodes SET answer = %s WHERE id = %s{} RETURNING channel_id, created_at"


async def extend_exchange(
    db: Session, episode_id: int, message_ts: list[str], answer: str, config: MemoryConfig
) -> bool:
    """A pending episode (its answer still streaming) is in no index; one voted on
    meanwhile is filed again with its new text."""
    async with db.transaction():
        row = await db.row(_EXTENDED.format(" AND status = %s"), [answer, episode_id, _PENDING])
        if row is None:
            async with db.refiling([episode_id]):
                row = await db.row(_EXTENDED.format(""), [answer, episode_id])
        if row is None:
            return False
        expires_at = db.read_time(row["created_at"]) + config.ledger_ttl
        await LedgerParts(row["channel_id"], message_ts, expires_at).send(db, episode_id)
    return True


async def answered_in_thread(db: Session, channel_id: str, thread_ts: str) -> bool:
    """Whether the bot has answered in this thread (so follow-ups need no mention)."""
    [row] = await db.rows(
        "SELECT EXISTS (SELECT 1 FROM episodes WHERE channel_id = %s AND thread_ts = %s)"
        " OR EXISTS (SELECT 1 FROM ledger WHERE channel_id = %s AND message_ts = %s)"
        " AS answered",
        [channel_id, thread_ts, channel_id, thread_ts],
    )
    return bool(row["answered"])


async def set_lesson(db: Session, episode_id: int, lesson: str, reason: str | None = None) -> bool:
    """The check and the write are one statement, so a vote that changed the status, or a
    reason given while the model was reflecting, can never receive a stale lesson."""
    async with db.transaction(), db.refiling([episode_id]):
        changed = await db.execute(
            f"UPDATE episodes SET lesson = %s{db.lease_cleared}"
            " WHERE id = %s AND status = %s AND reason IS NOT DISTINCT FROM %s",
            [lesson, episode_id, EpisodeStatus.FAILURE.value, reason],
        )
    return bool(changed)


async def set_importance(db: Session, episode_id: int, importance: int) -> bool:
    if not 1 <= importance <= 10:
        raise ValueError(f"importance must be between 1 and 10, not {importance}")
    async with db.transaction():
        changed = await db.execute(
            f"UPDATE episodes SET importance = %s{db.lease_cleared} WHERE id = %s AND status = %s",
            [importance, episode_id, EpisodeStatus.SUCCESS.value],
        )
        if changed:
            await db.scored(episode_id)
    return bool(changed)


async def purge_expired(db: Session, now: datetime, config: MemoryConfig) -> int:
    """Delete expired ledger rows, then what they leave useless (a pending episode without
    ledger rows can never be validated; a claim older than them, never meet a retry)."""
    async with db.transaction():
        ledger = await db.execute("DELETE FROM ledger WHERE expires_at <= %s", [now])
        episodes = await db.execute(
            "DELETE FROM episodes WHERE status = 'pending'"
            " AND NOT EXISTS (SELECT 1 FROM ledger WHERE ledger.episode_id = episodes.id)"
        )
        claims = await db.execute("DELETE FROM claims WHERE at <= %s", [now - config.ledger_ttl])
    return ledger + episodes + claims


async def list_episodes(
    db: Session,
    user_id: str,
    scope: Scope | None = None,
    statuses: frozenset[EpisodeStatus] = VALIDATED,
    since: datetime | None = None,
    limit: int = 100,
    team_id: str | None = None,
) -> list[Episode]:
    if not statuses:
        return []
    filters: dict[str, list[Any]] = {  # each condition that applies, and its parameters
        "requester_id = %s": [user_id],
        f"status IN ({placeholders(len(statuses))})": [status.value for status in statuses],
        _IN_SCOPE: [] if scope is None else _scoped(scope),
        "team_id = %s": [] if team_id is None else [team_id],
        "created_at >= %s": [] if since is None else [since],
    }
    where = " AND ".join(condition for condition, params in filters.items() if params)
    sql = f"SELECT * FROM episodes WHERE {where} ORDER BY created_at DESC, id DESC LIMIT %s"
    return await read_episodes(db, sql, [*chain.from_iterable(filters.values()), limit])


async def scopes_with_recent_episodes(db: Session, since: datetime) -> list[tuple[Scope, str]]:
    found = await db.rows(
        "SELECT DISTINCT enterprise_id, team_id, channel_id, kind, requester_id FROM episodes"
        " WHERE status IN (%s, %s) AND validated_at >= %s"
        " ORDER BY enterprise_id, team_id, channel_id, kind, requester_id",
        [EpisodeStatus.SUCCESS.value, EpisodeStatus.FAILURE.value, since],
    )
    return [(rows.scope_from_row(row), row["requester_id"]) for row in found]


async def stats(db: Session) -> StoreStats:
    found = await db.rows("SELECT status, count(*) AS n FROM episodes GROUP BY status")
    counters = await db.counts()
    [votes] = await db.rows("SELECT count(*) AS n FROM votes")
    errors = {name: n for name, n in counters.items() if name.startswith("tool_error:")}
    return StoreStats(
        episodes_by_status={status.value: 0 for status in EpisodeStatus}
        | {row["status"]: row["n"] for row in found},
        votes=votes["n"],
        recalls=counters.get("recalls", 0),
        tool_errors={name.removeprefix("tool_error:"): n for name, n in errors.items()},
    )


async def ask_reason_once(
    db: Session, episode_id: int, user_id: str, *, at: datetime
) -> Episode | None:
    async with db.transaction():
        unasked = f"SELECT * FROM episodes WHERE {_THEIR_FAILURE} AND reason IS NULL"
        episode = await _episode(db, unasked, [episode_id, user_id])
        if episode is None:
            return None
        first = await claim(db, f"ask-why:{episode_id}", at=at, team_id=episode.scope.team_id)
        return episode if first else None


async def awaiting_reason(
    db: Session, channel_id: str, thread_ts: str, user_id: str, since: datetime
) -> Episode | None:
    return await _episode(
        db,
        "SELECT * FROM episodes WHERE channel_id = %s AND thread_ts = %s AND requester_id = %s"
        " AND status = 'failure' AND reason IS NULL AND validated_at >= %s"
        " AND EXISTS (SELECT 1 FROM votes WHERE votes.episode_id = episodes.id"
        " AND voter_id = episodes.requester_id AND vote = 'down')"
        " ORDER BY validated_at DESC, id DESC LIMIT 1",
        [channel_id, thread_ts, user_id, since],
    )


async def give_reason(
    db: Session, episode_id: int, user_id: str, reason: str, at: datetime
) -> Episode | None:
    """The lesson drafted without the reason goes, and any lease on drafting it, so any
    replica drafts it again at once; it leaves the index until then."""
    async with db.transaction():
        await db.lock_person(user_id)
        failure = f"SELECT 1 FROM episodes WHERE {_THEIR_FAILURE}"
        theirs = await db.row(failure, [episode_id, user_id])
        if theirs is None or await forgotten_since(db, user_id, at):
            return None
        async with db.refiling([episode_id]):
            await db.execute(
                f"UPDATE episodes SET reason = %s, lesson = NULL{db.lease_cleared} WHERE id = %s",
                [reason, episode_id],
            )
        return await _episode(db, "SELECT * FROM episodes WHERE id = %s", [episode_id])


async def first_parts(db: Session, episode_ids: Sequence[int]) -> dict[int, str]:
    member, ids = db.one_of(episode_ids)
    found = await db.rows(
        "SELECT episode_id, min(message_ts) AS ts FROM ledger"
        f" WHERE episode_id {member} GROUP BY episode_id",
        [ids],
    )
    return {int(row["episode_id"]): str(row["ts"]) for row in found}


async def _notes(db: Session, where: str, params: list[str]) -> list[WisdomNote]:
    found = await db.rows(f"SELECT * FROM wisdom WHERE {where} ORDER BY id", params)
    return [rows.wisdom_from_row(row, db.read_time) for row in found]


async def wisdom_for(db: Session, scope: Scope, user_id: str) -> list[WisdomNote]:
    return await _notes(db, _NOTES_OF, [*_scoped(scope), user_id])


async def replace_wisdom(
    db: Session, scope: Scope, user_id: str, notes: list[str], *, episode_count: int, at: datetime
) -> list[WisdomNote]:
    async with db.transaction():
        await db.lock_person(user_id, scope.team_id)
        if await forgotten_since(db, user_id, at, scope.team_id):
            return []
        owner = [*_scoped(scope), user_id]
        await db.execute(f"DELETE FROM wisdom WHERE {_NOTES_OF}", owner)
        for text in notes:
            await db.execute(
                "INSERT INTO wisdom (enterprise_id, team_id, channel_id, kind, user_id, text,"
                " episode_count, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                [*owner, text, episode_count, at],
            )
        return await wisdom_for(db, scope, user_id)


async def list_wisdom(db: Session, user_id: str, team_id: str | None = None) -> list[WisdomNote]:
    if team_id is None:
        return await _notes(db, "user_id = %s", [user_id])
    return await _notes(db, "user_id = %s AND team_id = %s", [user_id, team_id])
