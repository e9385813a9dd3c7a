"""Questions kept until answered: received with their message's claim, leased to the
process answering them, taken by another once the lease runs out (at once on SQLite,
whose one process restarted), each take an attempt, and deleted once answered."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from memory_helpers import T0, exchange

from memory import (
    MemoryConfig,
    MemoryStore,
    NewQuestion,
    PendingQuestion,
    open_store,
)
from tests.support.postgres_scratch import scratch_schema

LEASE = timedelta(seconds=30)


@pytest.fixture
async def url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """One database, for several processes' stores."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'bot.db'}"
        return
    async with scratch_schema() as scratch:
        yield scratch


@pytest.fixture
async def first(url: str) -> AsyncIterator[MemoryStore]:
    """The store of the process that received the questions."""
    store = await open_store(url, MemoryConfig())
    yield store
    await store.close()


@pytest.fixture
async def second(url: str) -> AsyncIterator[MemoryStore]:
    """The store of another replica on the same database."""
    store = await open_store(url, MemoryConfig())
    yield store
    await store.close()


def asked(n: int, *, user: str = "U1", team: str = "T1") -> NewQuestion:
    return NewQuestion(
        team_id=team, user_id=user, received_at=T0 + timedelta(seconds=n), payload=f"q{n}"
    )


async def receive(store: MemoryStore, n: int, **who: str) -> PendingQuestion:
    question = await store.receive_question(asked(n, **who), f"Ev{n}", f"D1:{n}.0", lease=LEASE)
    assert question is not None
    return question


async def test_a_question_is_received_once_with_its_message_claimed(first: MemoryStore) -> None:
    question = await receive(first, 1)

    assert (question.payload, question.user_id, question.attempts) == ("q1", "U1", 1)
    assert question.received_at == T0 + timedelta(seconds=1)
    again = asked(1)
    assert await first.receive_question(again, "Ev1", "D1:1.0", lease=LEASE) is None
    assert await first.receive_question(again, "Ev1-retry", "D1:1.0", lease=LEASE) is None
    assert not await first.claim("Ev1", at=T0), "the message is claimed with the question"
    [taken] = await first.take_questions(now=T0 + LEASE * 2, lease=LEASE, limit=5)
    assert taken.id == question.id, "a re-delivery kept no second question"


async def test_a_process_does_not_take_back_what_it_is_answering(first: MemoryStore) -> None:
    await receive(first, 1)

    assert await first.take_questions(now=T0 + LEASE / 2, lease=LEASE, limit=5) == []


async def test_only_the_leases_named_are_renewed(first: MemoryStore) -> None:
    answering = await receive(first, 1)
    await receive(first, 2)  # kept, but the process stopped waiting for it

    assert await first.renew_questions([answering.id], now=T0 + LEASE, lease=LEASE) == 1
    [left] = await first.take_questions(now=T0 + LEASE * 1.5, lease=LEASE, limit=5)
    assert left.payload == "q2"


@pytest.mark.postgres_only
async def test_another_replica_takes_a_question_once_its_lease_runs_out(
    first: MemoryStore, second: MemoryStore
) -> None:
    question = await receive(first, 1)
    assert await second.take_questions(now=T0 + LEASE / 2, lease=LEASE, limit=5) == []
    [taken] = await second.take_questions(now=T0 + LEASE * 2, lease=LEASE, limit=5)
    assert (taken.id, taken.attempts) == (question.id, 2)
    assert await first.take_questions(now=T0 + LEASE * 2, lease=LEASE, limit=5) == []


@pytest.mark.sqlite_only
async def test_a_restarted_process_takes_at_once_what_the_one_before_held(
    first: MemoryStore, url: str
) -> None:
    question = await receive(first, 1)
    await first.close()  # the process was killed: nothing let the question go
    restarted = await open_store(url, MemoryConfig())
    try:
        [taken] = await restarted.take_questions(now=T0, lease=LEASE, limit=5)
        assert (taken.id, taken.attempts) == (question.id, 2)
        assert await restarted.take_questions(now=T0, lease=LEASE, limit=5) == []
    finally:
        await restarted.close()


@pytest.mark.postgres_only
async def test_a_renewed_lease_keeps_the_question_from_other_replicas(
    first: MemoryStore, second: MemoryStore
) -> None:
    question = await receive(first, 1)
    assert await first.renew_questions([question.id], now=T0 + LEASE, lease=LEASE) == 1
    assert await second.take_questions(now=T0 + LEASE * 1.5, lease=LEASE, limit=5) == []
    assert len(await second.take_questions(now=T0 + LEASE * 3, lease=LEASE, limit=5)) == 1


@pytest.mark.postgres_only
async def test_replicas_taking_at_once_take_each_question_once(
    first: MemoryStore, url: str
) -> None:
    for n in range(12):
        await receive(first, n)
    replicas = await asyncio.gather(*(open_store(url, MemoryConfig()) for _ in range(3)))
    try:
        takes = await asyncio.gather(
            *(
                replica.take_questions(now=T0 + LEASE * 2, lease=LEASE, limit=5)
                for replica in replicas
                for _ in range(2)
            )
        )
    finally:
        await asyncio.gather(*(replica.close() for replica in replicas))
    ids = [question.id for taken in takes for question in taken]
    assert len(ids) == 12
    assert len(set(ids)) == 12, "no question was taken twice"


async def test_the_oldest_questions_are_taken_first_within_the_limit(first: MemoryStore) -> None:
    for n in (3, 1, 2):
        await receive(first, n)

    taken = await first.take_questions(now=T0 + LEASE * 2, lease=LEASE, limit=2)

    assert [question.payload for question in taken] == ["q1", "q2"]


async def test_a_finished_question_is_gone(first: MemoryStore) -> None:
    question = await receive(first, 1)

    assert await first.finish_question(question.id)
    assert not await first.finish_question(question.id)
    assert await first.take_questions(now=T0 + LEASE * 2, lease=LEASE, limit=5) == []


async def test_a_released_question_is_taken_again_from_its_retry_time(first: MemoryStore) -> None:
    kept = await receive(first, 1)
    released = await receive(first, 2)
    retry_at = T0 + timedelta(seconds=10)

    assert await first.release_questions(retry_at=retry_at, question_id=released.id) == 1

    assert await first.take_questions(now=retry_at, lease=LEASE, limit=5) == []
    [taken] = await first.take_questions(now=retry_at + timedelta(seconds=1), lease=LEASE, limit=5)
    assert (taken.id, taken.attempts) == (released.id, 2)
    held = [kept.id, released.id]
    assert await first.renew_questions(held, now=retry_at, lease=LEASE) == 2, "held again"
    assert await first.release_questions(retry_at=retry_at) == 2, "every one, at a stop"
    later = await first.take_questions(now=retry_at + timedelta(seconds=1), lease=LEASE, limit=5)
    assert {question.id for question in later} == {kept.id, released.id}


async def test_a_question_taken_up_comes_with_the_parts_an_earlier_attempt_showed(
    first: MemoryStore,
) -> None:
    question = await receive(first, 1)
    shown = await first.record_exchange(
        exchange("q1", "half an ans", ts=["5.000200", "5.000100"], thread_ts="1.0")
    )
    assert shown is not None
    assert await first.question_shown(question.id, shown.id)

    [taken] = await first.take_questions(now=T0 + LEASE * 2, lease=LEASE, limit=5)

    assert (taken.episode_id, taken.shown) == (shown.id, ["5.000100", "5.000200"])
    assert await first.withdraw_exchange(shown.id)
    assert await first.release_questions(retry_at=T0) == 1
    [again] = await first.take_questions(now=T0 + LEASE * 4, lease=LEASE, limit=5)
    assert again.shown == [], "the parts were taken back"
    assert await first.finish_question(question.id)
    assert not await first.question_shown(question.id, shown.id), "gone"


async def test_a_question_whose_asker_was_forgotten_since_it_arrived_is_not_kept(
    first: MemoryStore,
) -> None:
    await first.forget_user("U1", at=T0 + timedelta(seconds=5))

    assert await first.receive_question(asked(1), "Ev1", lease=LEASE) is None
    assert await first.take_questions(now=T0 + LEASE * 9, lease=LEASE, limit=5) == []
    assert not await first.claim("Ev1", at=T0), "claimed all the same: retries are not answered"
    assert await receive(first, 9), "a question asked after the erasure is kept"
