"""Recall finds the asker's validated experience phrased differently, and nothing else."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memory_helpers import CHANNEL, DM, T0, Memory

from memory import (
    ConversationKind,
    EpisodeStatus,
    HybridRecall,
    MemoryConfig,
    RecallWeights,
    Scope,
    Vote,
)

DAY = timedelta(days=1)


LIBRARY = {
    "deploy": (
        "How do I deploy the billing service to staging?",
        "Run `make deploy SERVICE=billing ENV=staging` from the ops repo.",
    ),
    "vpn": (
        "My VPN keeps disconnecting every few minutes, what can I do?",
        "Switch the VPN client to TCP mode and disable IPv6 on the adapter.",
    ),
    "expenses": (
        "Where do I submit expense reports for conference travel?",
        "Expense reports go through Navan; attach receipts within 30 days.",
    ),
    "postgres": (
        "The nightly Postgres backup job failed with a disk full error",
        "Prune old WAL archives on the backup volume, then rerun the job.",
    ),
}
"""A few exchanges on unrelated topics."""


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("what's the way to get billing deployed on staging", "deploy"),
        ("deploying billing to the staging environment?", "deploy"),
        ("vpn connection drops constantly", "vpn"),
        ("the VPN disconnects again", "vpn"),
        ("how can I get reimbursed for travel expenses", "expenses"),
        ("submitting an expense report", "expenses"),
        ("postgres backups failing, disk is full", "postgres"),
    ],
)
async def test_paraphrased_questions_recall_the_matching_episode_first(
    memory: Memory, question: str, topic: str
) -> None:
    ids = await memory.library(LIBRARY)
    assert await memory.first_recalled(question) == ids[topic]


PARAPHRASED = {
    "benefits": (
        "Can I change my health plan after a marriage or a birth?",
        "Yes, within 30 days of the event, in the benefits portal.",
    ),
    "summary": (
        "Why does the order summary page show stale totals?",
        "It caches totals for a minute; invalidate the cache on checkout.",
    ),
    "gateway": (
        "Where does the payment gateway keep its configuration?",
        "In the settings repo, under gateways/stripe.yaml.",
    ),
    "printer": (
        "The printer on floor 2 jams every morning",
        "A known recurrence: facilities replaced the feeder, use floor 3 meanwhile.",
    ),
}
"""Exchanges that the paraphrases below find by a shared stem or identifier part."""


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        # inflections the stemmer does not unify: married / marriage, recurring / recurrence
        ("so we just got married!! anything to do?", "benefits"),
        ("is it recurring?", "printer"),
        # a code identifier finds the words it is made of
        ("OrderSummaryPanel flickers", "summary"),
        # the words that matter come after the chatter
        (
            "hey, sorry to bother you again, quick one, the team is asking me and I "
            "forgot: the printers upstairs keep jamming",
            "printer",
        ),
    ],
)
async def test_paraphrases_sharing_a_word_stem_or_identifier_part_are_recalled_first(
    memory: Memory, question: str, topic: str
) -> None:
    ids = await memory.library(PARAPHRASED)
    assert await memory.first_recalled(question) == ids[topic]


@pytest.mark.parametrize(
    "question",
    ["what's for lunch today?", "who won the football match", "how are you?", "?!"],
)
async def test_unrelated_questions_recall_nothing(memory: Memory, question: str) -> None:
    await memory.library(LIBRARY)
    assert await memory.recall(question) == []


async def test_the_answer_text_is_searched_too(memory: Memory) -> None:
    ids = await memory.library(LIBRARY)
    assert await memory.first_recalled("navan receipts") == ids["expenses"]


async def test_a_failures_lesson_is_searchable(memory: Memory) -> None:
    episode = await memory.answered(
        "Why is the build red?", "Probably flaky tests.", vote=Vote.DOWN
    )
    assert await memory.recall("lockfile mismatch") == []
    await memory.store.set_lesson(episode.id, "Check the lockfile for a version mismatch first.")
    [recalled] = await memory.recall("lockfile mismatch")
    assert recalled.episode.lesson == "Check the lockfile for a version mismatch first."
    assert recalled.episode.status is EpisodeStatus.FAILURE


async def test_pending_exchanges_are_never_recalled(memory: Memory) -> None:
    await memory.ask("How do I deploy the billing service to staging?")
    assert await memory.recall("deploy billing staging") == []


async def test_another_persons_episodes_are_not_recalled(memory: Memory) -> None:
    await memory.answered("How do I deploy the billing service?", user="U2")
    assert await memory.recall("deploy billing", user="U1") == []
    assert len(await memory.recall("deploy billing", user="U2")) == 1


async def test_a_dm_episode_is_not_recalled_in_a_channel_and_vice_versa(memory: Memory) -> None:
    await memory.answered("How do I deploy the billing service?", scope=DM)
    assert await memory.recall("deploy billing", scope=CHANNEL) == []
    await memory.answered("How do I rotate the vault token?", scope=CHANNEL)
    assert await memory.recall("rotate vault token", scope=DM) == []
    other_team = Scope(team_id="T2", channel_id=CHANNEL.channel_id, kind=ConversationKind.CHANNEL)
    assert await memory.recall("rotate vault token", scope=other_team) == []


async def test_channel_successes_stay_private_unless_sharing_is_on(memory: Memory) -> None:
    await memory.answered("How do I rotate the vault token?", scope=CHANNEL, user="U2")
    assert await memory.recall("rotate vault token", scope=CHANNEL, user="U1") == []


@pytest.mark.parametrize("config", [MemoryConfig(share_channel_successes=True)])
async def test_shared_channel_successes_reach_other_members_but_failures_and_dms_do_not(
    memory: Memory,
) -> None:
    success = await memory.answered("How do I rotate the vault token?", scope=CHANNEL, user="U2")
    await memory.answered(
        "Rotate the vault token for prod?", scope=CHANNEL, user="U2", vote=Vote.DOWN
    )
    await memory.answered("How do I rotate the vault token in my DM?", scope=DM, user="U2")
    other_channel = Scope(team_id="T1", channel_id="C999", kind=ConversationKind.CHANNEL)
    recalled = await memory.recall("rotate vault token", scope=CHANNEL, user="U1")
    assert [r.episode.id for r in recalled] == [success.id]
    assert await memory.recall("rotate vault token", scope=other_channel, user="U1") == []
    assert await memory.recall("rotate vault token", scope=DM, user="U1") == []


@pytest.mark.parametrize("config", [MemoryConfig(share_channel_successes=True)])
async def test_a_shared_success_turned_failure_is_no_longer_shared(memory: Memory) -> None:
    episode = await memory.answered("How do I rotate the vault token?", scope=CHANNEL, user="U2")
    assert await memory.recall("vault token", scope=CHANNEL, user="U1")
    await memory.react(CHANNEL, memory.sent[episode.id][0], "U2", "-1", at=T0 + DAY)
    assert await memory.recall("vault token", scope=CHANNEL, user="U1") == []
    assert await memory.recall("vault token", scope=CHANNEL, user="U2")


@pytest.mark.parametrize(
    "config",
    [
        # full text alone: the two episodes' vectors differ by the day they were asked
        MemoryConfig(
            weights=RecallWeights(recency=1.0, importance=1.0), hybrid=HybridRecall(semantic=0)
        )
    ],
)
async def test_recency_and_importance_rerank_equally_relevant_episodes(memory: Memory) -> None:
    old = await memory.answered("How do I restart the worker pool?", at=T0)
    new = await memory.answered("How do I restart the worker pool?", at=T0 + 30 * DAY)
    recalled = await memory.recall("restart worker pool", now=T0 + 31 * DAY)
    assert [r.episode.id for r in recalled] == [new.id, old.id]
    assert recalled[0].recency > recalled[1].recency
    await memory.store.set_importance(old.id, 10)
    await memory.store.set_importance(new.id, 1)
    recalled = await memory.recall("restart worker pool", now=T0 + 31 * DAY)
    assert [r.episode.id for r in recalled] == [old.id, new.id]


@pytest.mark.parametrize(
    "config",
    [MemoryConfig(weights=RecallWeights(relevance=1.0, recency=0.0, importance=0.0))],
)
async def test_relevance_alone_prefers_the_episode_sharing_more_words(memory: Memory) -> None:
    partial = await memory.answered("restart the cache", at=T0 + 10 * DAY)
    full = await memory.answered("restart the redis cache cluster in eu-west", at=T0)
    recalled = await memory.recall("restart redis cache cluster eu-west", now=T0 + 11 * DAY)
    assert [r.episode.id for r in recalled] == [full.id, partial.id]
    assert (recalled[0].relevance, recalled[1].relevance) == (1.0, 0.0)


async def test_limit_and_token_budget_bound_what_is_recalled(memory: Memory) -> None:
    for i in range(8):
        await memory.answered(f"Restart the worker pool number {i}", "x" * 400)
    assert len(await memory.recall("restart worker pool", limit=3)) == 3
    # each episode is ~110 tokens: a 250 token budget fits two
    assert len(await memory.recall("restart worker pool", token_budget=250)) == 2
    assert len(await memory.recall("restart worker pool", token_budget=1)) == 1


async def test_recalls_that_find_something_are_counted(memory: Memory) -> None:
    await memory.answered("How do I restart the worker pool?")
    await memory.recall("restart worker pool")
    await memory.recall("unrelated lunch menu")
    await memory.recall("worker pool")
    assert (await memory.store.stats()).recalls == 2


async def test_accents_and_inflections_do_not_prevent_recall(memory: Memory) -> None:
    cafe = await memory.answered(
        "Which café delivers lunch to the office?", "Le Crème, on Fridays."
    )
    [recalled] = await memory.recall("cafes delivering lunches")
    assert recalled.episode.id == cafe.id
    [recalled] = await memory.recall("creme")
    assert recalled.episode.id == cafe.id
