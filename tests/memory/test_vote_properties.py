"""Property: whatever reactions come and go, the status is the latest counting vote's."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memory_helpers import CHANNEL, T0, FreshStore, Memory

from memory import EpisodeStatus, MemoryConfig, Vote

REQUESTER = "U1"
REACTIONS = {
    "+1": Vote.UP,
    "+1::skin-tone-2": Vote.UP,
    "thumbsup": Vote.UP,
    "-1": Vote.DOWN,
    "thumbsdown::skin-tone-5": Vote.DOWN,
}


@dataclass(frozen=True)
class Event:
    voter: str
    reaction: str  # an emoji name, "eyes" (not a vote) or "button"
    button_vote: Vote | None
    added: bool
    minute: int


events = st.lists(
    st.builds(
        Event,
        voter=st.sampled_from([REQUESTER, "U2"]),
        reaction=st.sampled_from([*REACTIONS, "eyes", "button"]),
        button_vote=st.sampled_from([Vote.UP, Vote.DOWN]),
        added=st.booleans(),
        minute=st.integers(min_value=1, max_value=6),
    ),
    max_size=20,
)


def expected_status(history: list[Event], anyone_may_vote: bool) -> EpisodeStatus:
    """A plain model of the rules: slots per voter, latest (time, arrival) present vote wins."""
    present: dict[tuple[str, str], tuple[int, int, Vote]] = {}
    for arrival, event in enumerate(history):
        if event.reaction == "eyes" or (not anyone_may_vote and event.voter != REQUESTER):
            continue
        is_button = event.reaction == "button"
        slot = (event.voter, "button" if is_button else event.reaction.split("::")[0])
        vote = event.button_vote if is_button else REACTIONS[event.reaction]
        if not event.added:
            present.pop(slot, None)
        elif is_button:
            old = present.get(slot)
            if old is None or (old[0], old[2]) != (event.minute, vote):
                present[slot] = (event.minute, arrival, vote)
        else:
            present.setdefault(slot, (event.minute, arrival, vote))
    if not present:
        return EpisodeStatus.PENDING
    _, _, latest = max(present.values(), key=lambda item: (item[0], item[1]))
    return EpisodeStatus.SUCCESS if latest is Vote.UP else EpisodeStatus.FAILURE


async def _scenario(fresh_store: FreshStore, history: list[Event], anyone_may_vote: bool) -> None:
    async with fresh_store(MemoryConfig(anyone_may_vote=anyone_may_vote)) as store:
        memory = Memory(store)
        episode = await memory.ask(
            "How do I rotate the vault token?", user=REQUESTER, scope=CHANNEL
        )
        ts = memory.sent[episode.id][0]
        for event in history:
            await memory.react(
                CHANNEL,
                ts,
                event.voter,
                event.reaction,
                added=event.added,
                vote=event.button_vote if event.reaction == "button" else None,
                at=T0 + timedelta(minutes=event.minute),
            )
        [stored] = (await store.export_user(REQUESTER)).episodes
        expected = expected_status(history, anyone_may_vote)
        assert stored.status is expected
        recalled = await memory.recall("rotate vault token", user=REQUESTER, scope=CHANNEL)
        assert bool(recalled) == (expected is not EpisodeStatus.PENDING)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(history=events, anyone_may_vote=st.booleans())
def test_status_is_always_the_latest_counting_vote(
    fresh_store: FreshStore, history: list[Event], anyone_may_vote: bool
) -> None:
    asyncio.run(_scenario(fresh_store, history, anyone_may_vote))
