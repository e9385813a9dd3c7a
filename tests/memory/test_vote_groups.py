"""Votes applied in a group (:func:`memory.sql.votes.apply_votes`, here on SQLite): one
transaction for the group, which commits every vote or none (the queue then applies each
alone: see test_vote_queue)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from memory_helpers import DM, exchange, thumbs_up
from sqlite_utils import Database

from memory import EpisodeStatus, MemoryConfig, VoteEvent
from memory.sql import episodes as shared_episodes
from memory.sql import votes as sql_votes
from memory.sqlite.store import connect, engine
from tests.support.sqlite_verbs import on_connection

episodes = on_connection(shared_episodes)

pytestmark = pytest.mark.sqlite_only

CONFIG = MemoryConfig()
apply_votes = on_connection(sql_votes).apply_votes


def _answered(db: Database, user: str, ts: str) -> VoteEvent:
    """An exchange of ``user`` in their DM, and the asker's 👍 on it (not applied yet)."""
    scope = DM.model_copy(update={"channel_id": f"D{user}"})
    episodes.record_exchange(
        db,
        exchange("Where is the staging cluster?", "In eu-west-1.", ts=ts, user=user, scope=scope),
        CONFIG,
    )
    return thumbs_up(scope, ts, user)


def _state(db: Database) -> list[tuple[str, str, int]]:
    """Each episode's asker and status, and how many votes it has."""
    return [
        tuple(row)
        for row in db.execute(
            "SELECT requester_id, status, (SELECT count(*) FROM votes WHERE episode_id = e.id)"
            " FROM episodes AS e ORDER BY requester_id"
        )
    ]


def test_a_vote_that_fails_in_a_group_undoes_the_whole_group(tmp_path: Path) -> None:
    db = connect(tmp_path / "bot.db")
    votes = [_answered(db, user, f"1700000000.00000{n}") for n, user in enumerate("ABC")]
    # B's vote is stored, then its status change fails: A's vote, before it, must go too.
    db.execute(
        "CREATE TRIGGER refuse BEFORE UPDATE OF status ON episodes"
        " WHEN NEW.requester_id = 'B' BEGIN SELECT RAISE(ABORT, 'refused'); END"
    )

    with pytest.raises(engine.IntegrityError):
        apply_votes(db, votes, CONFIG)

    assert not db.conn.in_transaction, "the group was rolled back"
    assert _state(db) == [("A", "pending", 0), ("B", "pending", 0), ("C", "pending", 0)]


def test_a_vote_applied_twice_in_one_group_counts_once(tmp_path: Path) -> None:
    db = connect(tmp_path / "bot.db")
    vote = _answered(db, "A", "1700000000.000001")

    once, again = apply_votes(db, [vote, vote], CONFIG)

    assert once.applied
    assert not again.applied
    assert _state(db) == [("A", "success", 1)]


def test_votes_on_one_answer_in_one_group_apply_in_order(tmp_path: Path) -> None:
    """Each vote of a group sees the status the votes before it left (the group reads the
    episode once): a 👍 and its removal leave the answer pending, as two groups would."""
    db = connect(tmp_path / "bot.db")
    up = _answered(db, "A", "1700000000.000001")
    removed = up.model_copy(update={"added": False, "at": up.at + timedelta(seconds=1)})

    outcomes = apply_votes(db, [up, removed], CONFIG)

    assert [(o.applied, o.status) for o in outcomes] == [
        (True, EpisodeStatus.SUCCESS),
        (True, EpisodeStatus.PENDING),
    ]
    assert _state(db) == [("A", "pending", 0)]


def test_votes_on_two_parts_of_one_answer_in_one_group_share_its_status(
    tmp_path: Path,
) -> None:
    """A 👍 on an answer's first message and its removal through the second (the same
    vote: one per person and emoji on an answer) leave it pending."""
    db = connect(tmp_path / "bot.db")
    scope = DM.model_copy(update={"channel_id": "DA"})
    parts = ["1700000000.000001", "1700000000.000002"]
    episodes.record_exchange(
        db,
        exchange("Where is the staging cluster?", "In eu-west-1.", ts=parts, user="A", scope=scope),
        CONFIG,
    )
    up = thumbs_up(scope, parts[0], "A")
    removed = thumbs_up(scope, parts[1], "A").model_copy(
        update={"added": False, "at": up.at + timedelta(seconds=1)}
    )

    outcomes = apply_votes(db, [up, removed], CONFIG)

    assert [(o.applied, o.status) for o in outcomes] == [
        (True, EpisodeStatus.SUCCESS),
        (True, EpisodeStatus.PENDING),
    ]
    assert _state(db) == [("A", "pending", 0)]
