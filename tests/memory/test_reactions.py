"""Which reactions are votes, whose votes count, and the status votes leave behind."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from memory_helpers import CHANNEL, DM, T0, Memory

from memory import (
    EpisodeStatus,
    MemoryConfig,
    MemoryStore,
    RecallRequest,
    Vote,
    VoteEvent,
)
from memory.config import Ballot, ballot_for, base_emoji, status_for, vote_for_emoji

MINUTE = timedelta(minutes=1)


# -- pure rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "base"),
    [("+1::skin-tone-3", "+1"), ("thumbsdown::skin-tone-6", "thumbsdown"), (":+1:", "+1")],
)
def test_skin_tones_and_colons_are_stripped(name: str, base: str) -> None:
    assert base_emoji(name) == base


def test_configured_emoji_are_votes_and_others_are_ignored() -> None:
    config = MemoryConfig(positive_reactions=frozenset({"tada"}))
    assert vote_for_emoji("tada", config) is Vote.UP
    assert vote_for_emoji("+1", config) is None
    assert vote_for_emoji("-1::skin-tone-2", config) is Vote.DOWN
    assert vote_for_emoji("eyes", config) is None


def _event(reaction: str, vote: Vote | None = None) -> VoteEvent:
    return VoteEvent(
        channel_id="C",
        message_ts="1.1",
        voter_id="U",
        reaction=reaction,
        added=True,
        vote=vote,
        at=T0,
    )


def test_ballots_have_one_slot_per_emoji_and_one_for_buttons() -> None:
    config = MemoryConfig()
    assert ballot_for(_event("+1::skin-tone-4"), config) == Ballot(slot="+1", vote=Vote.UP)
    assert ballot_for(_event("button", Vote.DOWN), config) == Ballot(slot="button", vote=Vote.DOWN)
    assert ballot_for(_event("button"), config) is None
    assert ballot_for(_event("heart"), config) is None


def test_status_follows_the_latest_vote() -> None:
    assert status_for(None) is EpisodeStatus.PENDING
    assert status_for(Vote.UP) is EpisodeStatus.SUCCESS
    assert status_for(Vote.DOWN) is EpisodeStatus.FAILURE


# -- votes applied to the store ---------------------------------------------------------


async def _status(store: MemoryStore, user: str, episode_id: int) -> EpisodeStatus:
    export = await store.export_user(user)
    [episode] = [e for e in export.episodes if e.id == episode_id]
    return episode.status


async def test_the_requesters_thumbs_up_validates_a_success(memory: Memory) -> None:
    episode = await memory.ask("How do I rotate the API key?")
    outcome = await memory.react(DM, memory.sent[episode.id][0], "U1", "+1", at=T0 + MINUTE)
    assert outcome.applied
    assert (outcome.episode_id, outcome.status) == (episode.id, EpisodeStatus.SUCCESS)
    [validated] = await memory.store.list_episodes("U1")
    assert validated.status is EpisodeStatus.SUCCESS
    assert validated.validated_at == T0 + MINUTE


async def test_a_reaction_on_any_part_of_a_multi_part_answer_counts(memory: Memory) -> None:
    episode = await memory.ask("A long question", parts=3)
    outcome = await memory.react(DM, memory.sent[episode.id][2], "U1", "-1::skin-tone-5")
    assert outcome.applied
    assert outcome.status is EpisodeStatus.FAILURE


async def test_someone_elses_vote_is_ignored_by_default(memory: Memory) -> None:
    episode = await memory.ask("Where is the runbook?", scope=CHANNEL)
    outcome = await memory.react(CHANNEL, memory.sent[episode.id][0], "U2", "+1")
    assert not outcome.applied
    assert "person who asked" in outcome.reason
    assert await _status(memory.store, "U1", episode.id) is EpisodeStatus.PENDING
    assert (await memory.store.stats()).votes == 0


@pytest.mark.parametrize("config", [MemoryConfig(anyone_may_vote=True)])
async def test_anyone_may_vote_when_configured(memory: Memory) -> None:
    episode = await memory.ask("Where is the runbook?", scope=CHANNEL)
    ts = memory.sent[episode.id][0]
    outcome = await memory.react(CHANNEL, ts, "U2", "-1", at=T0 + MINUTE)
    assert outcome.applied
    assert outcome.status is EpisodeStatus.FAILURE
    # and the latest vote, whoever cast it, decides
    outcome = await memory.react(CHANNEL, ts, "U3", "+1", at=T0 + 2 * MINUTE)
    assert outcome.status is EpisodeStatus.SUCCESS


async def test_other_emoji_are_ignored(memory: Memory) -> None:
    episode = await memory.ask("Anything")
    outcome = await memory.react(DM, memory.sent[episode.id][0], "U1", "eyes")
    assert not outcome.applied
    assert outcome.reason == "not a feedback reaction"


async def test_the_latest_vote_wins(memory: Memory) -> None:
    episode = await memory.ask("Which region is prod in?")
    ts = memory.sent[episode.id][0]
    await memory.react(DM, ts, "U1", "+1", at=T0 + MINUTE)
    outcome = await memory.react(DM, ts, "U1", "-1", at=T0 + 2 * MINUTE)
    assert outcome.status is EpisodeStatus.FAILURE
    outcome = await memory.react(DM, ts, "U1", "thumbsup", at=T0 + 3 * MINUTE)
    assert outcome.status is EpisodeStatus.SUCCESS


async def test_an_out_of_order_older_vote_does_not_override_a_newer_one(memory: Memory) -> None:
    episode = await memory.ask("Which region is prod in?")
    ts = memory.sent[episode.id][0]
    await memory.react(DM, ts, "U1", "-1", at=T0 + 2 * MINUTE)
    outcome = await memory.react(DM, ts, "U1", "+1", at=T0 + MINUTE)
    assert outcome.applied
    assert outcome.status is EpisodeStatus.FAILURE


async def test_removing_the_deciding_vote_falls_back_then_returns_to_pending(
    memory: Memory,
) -> None:
    episode = await memory.ask("Which region is prod in?")
    ts = memory.sent[episode.id][0]
    await memory.react(DM, ts, "U1", "+1", at=T0 + MINUTE)
    await memory.react(DM, ts, "U1", "-1", at=T0 + 2 * MINUTE)

    outcome = await memory.react(DM, ts, "U1", "-1", added=False, at=T0 + 3 * MINUTE)
    assert (outcome.applied, outcome.status) == (True, EpisodeStatus.SUCCESS)
    [episode_now] = await memory.store.list_episodes("U1")
    assert episode_now.validated_at == T0 + MINUTE

    outcome = await memory.react(DM, ts, "U1", "+1", added=False, at=T0 + 4 * MINUTE)
    assert (outcome.applied, outcome.status) == (True, EpisodeStatus.PENDING)
    assert await memory.store.list_episodes("U1") == []
    assert await _status(memory.store, "U1", episode.id) is EpisodeStatus.PENDING


async def test_removing_a_vote_that_was_never_there_is_a_no_op(memory: Memory) -> None:
    episode = await memory.ask("Anything")
    outcome = await memory.react(DM, memory.sent[episode.id][0], "U1", "+1", added=False)
    assert not outcome.applied
    assert outcome.status is EpisodeStatus.PENDING


async def test_a_status_change_drops_the_lesson_and_importance(memory: Memory) -> None:
    episode = await memory.answered("How to restart the cache?", vote=Vote.DOWN)
    await memory.store.set_lesson(episode.id, "Check the cache cluster name first.")
    ts = memory.sent[episode.id][0]
    await memory.react(DM, ts, "U1", "+1", at=T0 + 5 * MINUTE)
    [success] = await memory.store.list_episodes("U1")
    assert (success.status, success.lesson) == (EpisodeStatus.SUCCESS, None)
    await memory.store.set_importance(episode.id, 8)
    await memory.react(DM, ts, "U1", "+1", added=False, at=T0 + 6 * MINUTE)
    [failure] = await memory.store.list_episodes("U1")
    assert (failure.status, failure.lesson, failure.importance) == (
        EpisodeStatus.FAILURE,
        None,
        None,
    )


async def test_the_same_reaction_twice_is_one_vote(memory: Memory) -> None:
    episode = await memory.ask("Anything")
    ts = memory.sent[episode.id][0]
    first = await memory.react(DM, ts, "U1", "+1", at=T0 + MINUTE)
    again = await memory.react(DM, ts, "U1", "+1::skin-tone-2", at=T0 + 2 * MINUTE)
    assert first.applied
    assert not again.applied
    assert (await memory.store.stats()).votes == 1
    # one removal takes it away entirely
    removed = await memory.react(DM, ts, "U1", "+1", added=False, at=T0 + 3 * MINUTE)
    assert removed.status is EpisodeStatus.PENDING
    assert (await memory.store.stats()).votes == 0


async def test_a_vote_on_a_message_the_bot_did_not_send_is_a_no_op(memory: Memory) -> None:
    await memory.ask("Anything")
    outcome = await memory.react(DM, "9999.000001", "U1", "+1")
    assert not outcome.applied
    assert outcome.episode_id is None
    assert "not a message" in outcome.reason


async def test_a_vote_in_another_channel_with_the_same_ts_is_a_no_op(memory: Memory) -> None:
    episode = await memory.ask("Anything")
    outcome = await memory.react(CHANNEL, memory.sent[episode.id][0], "U1", "+1")
    assert not outcome.applied


async def test_a_vote_after_the_ledger_entry_expired_is_a_no_op(
    memory: Memory, config: MemoryConfig
) -> None:
    episode = await memory.ask("Anything")
    ts = memory.sent[episode.id][0]
    outcome = await memory.react(DM, ts, "U1", "+1", at=T0 + config.ledger_ttl)
    assert not outcome.applied
    assert "window" in outcome.reason
    just_in_time = T0 + config.ledger_ttl - timedelta(seconds=1)
    assert (await memory.react(DM, ts, "U1", "+1", at=just_in_time)).applied


async def test_a_button_click_replaces_the_voters_previous_click(memory: Memory) -> None:
    episode = await memory.ask("Anything")
    ts = memory.sent[episode.id][0]
    up = await memory.react(DM, ts, "U1", "button", vote=Vote.UP, at=T0 + MINUTE)
    down = await memory.react(DM, ts, "U1", "button", vote=Vote.DOWN, at=T0 + 2 * MINUTE)
    assert (up.status, down.status) == (EpisodeStatus.SUCCESS, EpisodeStatus.FAILURE)
    assert (await memory.store.stats()).votes == 1
    # a click re-delivered is not a second vote
    again = await memory.react(DM, ts, "U1", "button", vote=Vote.DOWN, at=T0 + 2 * MINUTE)
    assert not again.applied
    # a button without a vote is not a vote
    assert not (await memory.react(DM, ts, "U1", "button", at=T0 + 3 * MINUTE)).applied


async def test_a_new_click_is_the_latest_vote_even_when_it_repeats_the_old_one(
    memory: Memory,
) -> None:
    episode = await memory.ask("Anything")
    ts = memory.sent[episode.id][0]
    await memory.react(DM, ts, "U1", "button", vote=Vote.UP, at=T0 + MINUTE)
    await memory.react(DM, ts, "U1", "-1", at=T0 + 2 * MINUTE)
    outcome = await memory.react(DM, ts, "U1", "button", vote=Vote.UP, at=T0 + 3 * MINUTE)
    assert (outcome.applied, outcome.status) == (True, EpisodeStatus.SUCCESS)


async def test_pending_episodes_are_never_recalled_even_after_a_vote_is_withdrawn(
    memory: Memory,
) -> None:
    episode = await memory.ask("How do I reset the staging database?")
    request = RecallRequest(
        scope=DM, requester_id="U1", text="reset the staging database", now=T0 + MINUTE
    )
    assert await memory.store.recall(request) == []
    ts = memory.sent[episode.id][0]
    await memory.react(DM, ts, "U1", "+1", at=T0 + MINUTE)
    assert [r.episode.id for r in await memory.store.recall(request)] == [episode.id]
    await memory.react(DM, ts, "U1", "+1", added=False, at=T0 + 2 * MINUTE)
    assert await memory.store.recall(request) == []


async def test_concurrent_votes_on_many_exchanges_are_all_applied(memory: Memory) -> None:
    episodes = [await memory.ask(f"Question number {i}") for i in range(200)]
    outcomes = await asyncio.gather(
        *(
            memory.react(DM, memory.sent[e.id][0], "U1", "+1" if e.id % 2 else "-1")
            for e in episodes
        )
    )
    assert all(outcome.applied for outcome in outcomes)
    stats = await memory.store.stats()
    assert stats.votes == 200
    assert stats.episodes_by_status == {"pending": 0, "success": 100, "failure": 100}


@pytest.mark.parametrize("config", [MemoryConfig(anyone_may_vote=True)])
async def test_concurrent_votes_on_one_exchange_lose_nothing(memory: Memory) -> None:
    episode = await memory.ask("Lunch?", scope=CHANNEL)
    ts = memory.sent[episode.id][0]
    outcomes = await asyncio.gather(
        *(memory.react(CHANNEL, ts, f"U{i}", "+1", at=T0 + i * MINUTE) for i in range(50))
    )
    assert all(outcome.applied for outcome in outcomes)
    assert (await memory.store.stats()).votes == 50
