"""Importing validated episodes with their own times, in one transaction."""

from __future__ import annotations

from datetime import timedelta

import pytest
from memory_helpers import CHANNEL, DM, T0, Memory
from pydantic import ValidationError

from memory import EpisodeStatus, ImportedEpisode, MemoryStore

DAY = timedelta(days=1)


def _imported(
    question: str, answer: str = "An answer.", *, days: int = 0, **fields: object
) -> ImportedEpisode:
    """U1's question in the DM, asked ``days`` after :data:`T0` and 👍'd a minute later;
    ``fields`` (by :class:`ImportedEpisode`'s names) change the rest."""
    asked = T0 + days * DAY
    return ImportedEpisode.model_validate(
        {
            "scope": DM,
            "requester_id": "U1",
            "question": question,
            "answer": answer,
            "status": EpisodeStatus.SUCCESS,
            "created_at": asked,
            "validated_at": asked + timedelta(minutes=1),
            **fields,
        }
    )


async def test_imported_episodes_keep_their_times_and_are_recalled_at_once(
    memory: Memory,
) -> None:
    ids = await memory.store.import_episodes(
        [
            _imported("How do I deploy the billing service to staging?", days=-40),
            _imported("What should I feed my puppy?", "Kibble for young dogs.", days=-10),
            _imported(
                "Why did the VPN drop?",
                "Blame the adapter.",
                status=EpisodeStatus.FAILURE,
                lesson="Check the MTU first.",
                days=-3,
            ),
        ]
    )
    assert all(isinstance(episode_id, int) for episode_id in ids)
    listed = {episode.id: episode for episode in await memory.store.list_episodes("U1")}
    deploy, puppy, vpn = (listed[episode_id] for episode_id in ids if episode_id is not None)
    assert deploy.created_at == T0 - 40 * DAY
    assert deploy.validated_at == T0 - 40 * DAY + timedelta(minutes=1)
    assert (vpn.status, vpn.lesson) == (EpisodeStatus.FAILURE, "Check the MTU first.")
    [recalled] = await memory.recall("deploying billing on staging")
    assert recalled.episode.id == deploy.id
    [recalled] = await memory.recall("MTU")
    assert recalled.episode.id == vpn.id
    # semantic recall finds them too
    [recalled] = await memory.recall("what can my new pet eat")
    assert recalled.episode.id == puppy.id


async def test_imported_episodes_stay_in_their_partition(memory: Memory) -> None:
    await memory.store.import_episodes(
        [_imported("How do I rotate the vault token?", requester_id="U0ALICE", scope=CHANNEL)]
    )
    assert await memory.recall("rotate vault token", user="U0BOB", scope=CHANNEL) == []
    assert await memory.recall("rotate vault token", user="U0ALICE", scope=DM) == []
    assert await memory.recall("rotate vault token", user="U0ALICE", scope=CHANNEL)


async def test_an_import_is_erased_by_forget_and_fenced_after_it(memory: Memory) -> None:
    store: MemoryStore = memory.store
    await store.import_episodes([_imported("Where is the zanzibarite marmalade?")])
    await store.forget_user("U1", at=T0 + DAY)
    assert await store.list_episodes("U1") == []
    # work that began before the erasure writes nothing about the person
    ids = await store.import_episodes(
        [_imported("Where is the zanzibarite marmalade again?"), _imported("Later?", days=2)]
    )
    assert ids[0] is None
    assert ids[1] is not None
    assert [episode.question for episode in await store.list_episodes("U1")] == ["Later?"]


def test_an_imported_episode_must_be_validated_and_consistent() -> None:
    with pytest.raises(ValidationError):
        _imported("pending?", status=EpisodeStatus.PENDING)
    with pytest.raises(ValidationError):
        _imported("a success with a lesson?", lesson="No.")
    with pytest.raises(ValidationError):
        ImportedEpisode(
            scope=DM,
            requester_id="U1",
            question="validated before it was asked?",
            answer="",
            status=EpisodeStatus.SUCCESS,
            created_at=T0,
            validated_at=T0 - DAY,
        )
