"""Answers, and votes on them, written straight to a store as the bot records them: for
tests and benchmarks that need a memory with a history before the bot runs (or beside it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.simulator.slack_people import dm_channel
from memory import ConversationKind, Episode, MemoryStore, NewExchange, Scope, VoteEvent

__all__ = ["record_answer", "record_answers"]


async def record_answer(
    memory: MemoryStore,
    scope: Scope,
    person: str,
    *,
    ts: str,
    question: str,
    answer: str,
    at: datetime,
    reaction: str | None = None,
) -> Episode:
    """Record an answer to ``person`` (its message ``ts``) as the bot does, and, given a
    ``reaction`` (``+1``, ``-1``), their vote on it two minutes later; the episode."""
    episode = await memory.record_exchange(
        NewExchange(
            scope=scope,
            requester_id=person,
            thread_ts=None,
            question=question,
            answer=answer,
            message_ts=[ts],
            created_at=at,
        )
    )
    if episode is None:
        raise RuntimeError("the exchange was not recorded: nobody here was forgotten")
    if reaction is not None:
        vote = VoteEvent(
            channel_id=scope.channel_id,
            message_ts=ts,
            voter_id=person,
            reaction=reaction,
            added=True,
            at=at + timedelta(minutes=2),
        )
        outcome = await memory.apply_vote(vote)
        if not outcome.applied:
            raise RuntimeError(f"the vote on {ts} was not applied: {outcome.reason}")
    return episode


async def record_answers(
    memory: MemoryStore, count: int, *, team_id: str, person: str
) -> list[tuple[str, Episode]]:
    """``count`` answers to ``person`` in their DM, unrated: each one's message ts and episode,
    in order."""
    scope = Scope(team_id=team_id, channel_id=dm_channel(person), kind=ConversationKind.DM)
    answers = []
    for index in range(count):
        ts = f"{1_700_000_000 + index}.000100"
        episode = await record_answer(
            memory,
            scope,
            person,
            ts=ts,
            question=f"Question number {index} about the deploy pipeline?",
            answer=f"Answer number {index}: run the release job again.",
            at=datetime.now(UTC),
        )
        answers.append((ts, episode))
    return answers
