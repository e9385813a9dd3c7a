"""Questions the bot acknowledged and has not answered yet, kept until it has
(memory/README.md, *Questions kept until answered*)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from memory.models import NewQuestion, PendingQuestion
from memory.sql.fence import claim, forgotten_since
from memory.sql.session import Session


def _question(row: dict[str, Any], db: Session, shown: list[str] | None = None) -> PendingQuestion:
    read = {"received_at": db.read_time(row["received_at"]), "shown": shown or []}
    return PendingQuestion.model_validate({**row, **read})


async def receive_question(
    db: Session, question: NewQuestion, *keys: str, lease: timedelta, holder: str
) -> PendingQuestion | None:
    """An erasure at once comes after the question is kept, and erases it, or before, and it
    is not kept (its keys claimed all the same, so Slack's retries are not answered either)."""
    team_id = question.team_id or None
    async with db.transaction():
        await db.lock_person(question.user_id, team_id)
        if not await claim(db, *keys, at=question.received_at, team_id=team_id):
            return None
        if await forgotten_since(db, question.user_id, question.received_at, team_id):
            return None
        [row] = await db.rows(
            "INSERT INTO questions (team_id, user_id, received_at, payload, holder, lease_until,"
            " attempts) VALUES (%(team_id)s, %(user_id)s, %(received_at)s, %(payload)s,"
            " %(holder)s, %(lease_until)s, 1) RETURNING *",
            dict(question.model_dump(), holder=holder, lease_until=question.received_at + lease),
        )
        return _question(row, db)


async def take_questions(
    db: Session, *, now: datetime, lease: timedelta, limit: int, holder: str
) -> list[PendingQuestion]:
    """With :attr:`Session.one_process`, another holder's questions are taken too (it died)."""
    rows = await db.rows(
        "UPDATE questions SET holder = %(holder)s, lease_until = %(until)s,"
        " attempts = attempts + 1"
        " WHERE id IN (SELECT id FROM questions WHERE lease_until < %(now)s"
        "   OR (%(others)s AND holder <> %(holder)s)"
        f"   ORDER BY received_at, id LIMIT %(limit)s{db.locked_skipped})"
        " RETURNING *",
        dict(holder=holder, until=now + lease, now=now, others=db.one_process, limit=limit),
    )
    shown: dict[int, list[str]] = {}  # the ts of each answer's parts still in the ledger
    if answered := [row["episode_id"] for row in rows if row["episode_id"]]:
        member, ids = db.one_of(answered)
        for part in await db.rows(
            f"SELECT episode_id, message_ts FROM ledger WHERE episode_id {member}"
            " ORDER BY message_ts",
            [ids],
        ):
            shown.setdefault(int(part["episode_id"]), []).append(part["message_ts"])
    taken = (_question(row, db, shown.get(row["episode_id"])) for row in rows)
    return sorted(taken, key=lambda q: (q.received_at, q.id))


async def question_shown(db: Session, question_id: int, episode_id: int) -> bool:
    shown = "UPDATE questions SET episode_id = %s WHERE id = %s"
    return bool(await db.execute(shown, [episode_id, question_id]))


async def renew_questions(
    db: Session, question_ids: Iterable[int], *, now: datetime, lease: timedelta, holder: str
) -> int:
    """Only those it names: a question it was handed but is not answering (say, kept by a
    write whose acknowledgement it stopped waiting for) is left to run out and be taken."""
    member, ids = db.one_of(list(question_ids))
    return await db.execute(
        f"UPDATE questions SET lease_until = %s WHERE holder = %s AND id {member}",
        [now + lease, holder, ids],
    )


async def finish_question(db: Session, question_id: int) -> bool:
    return bool(await db.execute("DELETE FROM questions WHERE id = %s", [question_id]))


async def release_questions(
    db: Session, holder: str, retry_at: datetime, question_id: int | None = None
) -> int:
    which = "" if question_id is None else " AND id = %(id)s"
    return await db.execute(
        "UPDATE questions SET holder = NULL, lease_until = %(at)s"
        f" WHERE holder = %(holder)s{which}",
        {"at": retry_at, "holder": holder, "id": question_id},
    )
