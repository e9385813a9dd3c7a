"""Why a person 👎'd an answer: asked once, kept on their episode, drafted into the lesson."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memory_helpers import CHANNEL, DM, T0, Memory

from memory import Episode, EpisodeStatus, MemoryConfig, Vote
from memory.learning import ReflectionWorker

THREAD = "900.000100"
VOTED_AT = T0 + timedelta(minutes=1)


class LessonWriter:
    """A reflector that writes what it was given into the lesson."""

    def __init__(self) -> None:
        self.reasons: list[str | None] = []

    async def reflect(self, question: str, answer: str, *, reason: str | None = None) -> str:
        self.reasons.append(reason)
        return f"Lesson on {question}" + (f" because {reason}" if reason else "")


async def thumbs_down_in_thread(
    memory: Memory, question: str, *, user: str = "U1", thread: str = THREAD
) -> Episode:
    """``user`` asks in ``thread`` of the DM and 👎s the answer a minute later."""
    episode = await memory.ask(question, user=user, thread_ts=thread)
    outcome = await memory.react(DM, memory.sent[episode.id][0], user, "-1", at=VOTED_AT)
    assert outcome.status is EpisodeStatus.FAILURE
    return episode


async def stored(memory: Memory, episode: Episode) -> Episode:
    [now] = [
        item
        for item in await memory.store.list_episodes(
            episode.requester_id, statuses=frozenset(EpisodeStatus)
        )
        if item.id == episode.id
    ]
    return now


@pytest.fixture
async def rated(memory: Memory) -> tuple[Episode, Episode]:
    """U1's 👎'd answer, and their 👍'd one."""
    failure = await memory.answered("How do I reset git?", user="U1", vote=Vote.DOWN)
    success = await memory.answered("How do I list branches?", user="U1")
    return failure, success


async def test_the_asker_is_asked_once_an_answer_and_only_about_their_failure(
    memory: Memory, rated: tuple[Episode, Episode]
) -> None:
    failure, success = rated
    store = memory.store

    assert await store.ask_reason_once(failure.id, "U2", at=VOTED_AT) is None  # not theirs
    # a 👍 is never asked about
    assert await store.ask_reason_once(success.id, "U1", at=VOTED_AT) is None
    asked = await store.ask_reason_once(failure.id, "U1", at=VOTED_AT)
    assert asked is not None and asked.id == failure.id
    assert await store.ask_reason_once(failure.id, "U1", at=VOTED_AT) is None  # never twice
    # taken back and given again: still the same answer, still asked once
    ts = memory.sent[failure.id][0]
    await memory.react(DM, ts, "U1", "-1", added=False, at=VOTED_AT + timedelta(minutes=1))
    await memory.react(DM, ts, "U1", "-1", at=VOTED_AT + timedelta(minutes=2))
    assert await store.ask_reason_once(failure.id, "U1", at=VOTED_AT) is None


async def test_a_reason_is_kept_and_the_lesson_is_drafted_again_with_it(memory: Memory) -> None:
    failure = await memory.answered("How do I reset git?", "git reset --hard", vote=Vote.DOWN)
    writer = LessonWriter()
    worker = ReflectionWorker(memory.store, writer, None)
    await worker.run_once()
    assert (await stored(memory, failure)).lesson == "Lesson on How do I reset git?"

    given = await memory.store.give_reason(
        failure.id, "U1", "it wiped my uncommitted changes", at=VOTED_AT
    )

    assert given is not None and given.reason == "it wiped my uncommitted changes"
    assert given.lesson is None, "the lesson drafted without the reason goes"
    report = await worker.run_once()
    assert report.lessons == 1
    assert writer.reasons == [None, "it wiped my uncommitted changes"]
    again = await stored(memory, failure)
    assert again.lesson == "Lesson on How do I reset git? because it wiped my uncommitted changes"
    assert again.reason == "it wiped my uncommitted changes"
    [recalled] = await memory.recall("reset git", user="U1")
    assert recalled.episode.reason == "it wiped my uncommitted changes"


async def test_a_lesson_drafted_before_the_reason_came_is_not_stored(memory: Memory) -> None:
    failure = await memory.answered("How do I reset git?", vote=Vote.DOWN)
    await memory.store.give_reason(failure.id, "U1", "it lost my work", at=VOTED_AT)

    assert not await memory.store.set_lesson(failure.id, "Drafted without the reason.")
    assert await memory.store.set_lesson(failure.id, "Keep the work.", reason="it lost my work")
    assert (await stored(memory, failure)).lesson == "Keep the work."


@pytest.mark.parametrize(("reaction", "added"), [("-1", False), ("+1", True)])
async def test_the_reason_goes_with_the_thumbs_down_it_explained(
    memory: Memory, reaction: str, added: bool
) -> None:
    failure = await memory.answered("How do I reset git?", vote=Vote.DOWN)
    await memory.store.give_reason(failure.id, "U1", "it lost my work", at=VOTED_AT)

    later = VOTED_AT + timedelta(minutes=5)
    await memory.react(DM, memory.sent[failure.id][0], "U1", reaction, added=added, at=later)

    assert (await stored(memory, failure)).reason is None


async def test_only_the_asker_gives_a_reason_for_their_failure_and_not_after_forget(
    memory: Memory, rated: tuple[Episode, Episode]
) -> None:
    failure, success = rated
    store = memory.store

    assert await store.give_reason(failure.id, "U2", "someone else's words", at=VOTED_AT) is None
    assert await store.give_reason(success.id, "U1", "a 👍 has no reason", at=VOTED_AT) is None
    await store.forget_user("U1", at=T0 + timedelta(hours=1))
    assert await store.give_reason(failure.id, "U1", "said before /forget", at=VOTED_AT) is None
    assert (await store.export_user("U1")).episodes == []


async def test_a_reply_in_the_thread_after_the_askers_thumbs_down_awaits_as_reason(
    memory: Memory,
) -> None:
    earlier = await thumbs_down_in_thread(memory, "First question")
    latest = await thumbs_down_in_thread(memory, "Second question")
    await memory.ask("Unvoted question", thread_ts=THREAD)
    store = memory.store

    found = await store.awaiting_reason(DM.channel_id, THREAD, "U1", since=T0)
    assert found is not None and found.id == latest.id
    assert await store.awaiting_reason(DM.channel_id, THREAD, "U2", since=T0) is None
    assert await store.awaiting_reason(DM.channel_id, "901.000100", "U1", since=T0) is None
    assert await store.awaiting_reason("D999", THREAD, "U1", since=T0) is None
    assert (
        await store.awaiting_reason(
            DM.channel_id, THREAD, "U1", since=VOTED_AT + timedelta(seconds=1)
        )
        is None
    )

    await store.give_reason(latest.id, "U1", "too vague", at=VOTED_AT)
    found = await store.awaiting_reason(DM.channel_id, THREAD, "U1", since=T0)
    assert found is not None and found.id == earlier.id


@pytest.mark.parametrize("config", [MemoryConfig(anyone_may_vote=True)])
async def test_a_thumbs_down_by_someone_else_awaits_no_reason_from_the_asker(
    memory: Memory,
) -> None:
    episode = await memory.ask("Channel question", user="U1", scope=CHANNEL, thread_ts=THREAD)
    outcome = await memory.react(CHANNEL, memory.sent[episode.id][0], "U2", "-1", at=VOTED_AT)
    assert outcome.status is EpisodeStatus.FAILURE

    assert await memory.store.awaiting_reason(CHANNEL.channel_id, THREAD, "U1", since=T0) is None
    assert await memory.store.awaiting_reason(CHANNEL.channel_id, THREAD, "U2", since=T0) is None


async def test_first_parts_are_the_first_message_of_each_answer_still_in_the_ledger(
    memory: Memory,
) -> None:
    two_parts = await memory.ask("A long one", parts=2)
    one_part = await memory.ask("A short one")

    parts = await memory.store.first_parts([two_parts.id, one_part.id, 12345])

    assert parts == {
        two_parts.id: memory.sent[two_parts.id][0],
        one_part.id: memory.sent[one_part.id][0],
    }
    await memory.store.purge_expired(now=T0 + timedelta(days=365))
    assert await memory.store.first_parts([two_parts.id]) == {}
