"""Which votes ask their voter why (:meth:`bot.assistant.reasons.Reasons.may_ask`): decided
without the store, so a 👍 starts no background work."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from bot.assistant.reasons import Reasons
from memory import EpisodeStatus, VoteEvent, VoteOutcome


class _NoStore:
    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"may_ask asked the store ({name})")


def _reasons(*, ask: bool = True) -> Reasons:
    return Reasons(_NoStore(), lambda: None, ask=ask)  # type: ignore[arg-type]


def _vote(*, added: bool = True) -> VoteEvent:
    return VoteEvent(
        channel_id="D1",
        message_ts="1700000000.000100",
        voter_id="U1",
        reaction="-1",
        added=added,
        at=datetime(2026, 3, 2, 9, 0, tzinfo=UTC),
    )


def _outcome(status: EpisodeStatus | None, *, applied: bool = True) -> VoteOutcome:
    return VoteOutcome(applied=applied, reason="vote recorded", episode_id=7, status=status)


def test_a_thumbs_down_stored_on_ones_own_answer_is_asked_about() -> None:
    assert _reasons().may_ask(_vote(), _outcome(EpisodeStatus.FAILURE))


@pytest.mark.parametrize(
    ("reasons", "vote", "outcome"),
    [
        (_reasons(), _vote(), _outcome(EpisodeStatus.SUCCESS)),
        (_reasons(), _vote(), _outcome(EpisodeStatus.FAILURE, applied=False)),
        (_reasons(), _vote(added=False), _outcome(EpisodeStatus.FAILURE)),
        (_reasons(ask=False), _vote(), _outcome(EpisodeStatus.FAILURE)),
    ],
    ids=["a thumbs up", "a vote not stored", "a vote removed", "asking off"],
)
def test_any_other_vote_is_not(reasons: Reasons, vote: VoteEvent, outcome: VoteOutcome) -> None:
    assert not reasons.may_ask(vote, outcome)
