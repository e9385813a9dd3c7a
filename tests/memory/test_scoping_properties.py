"""Property: no episode ever crosses a recall partition, whatever people asked where."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memory_helpers import T0, FreshStore, Memory

from memory import ConversationKind, Episode, EpisodeStatus, MemoryConfig, Scope, Vote

WORDS = ["deploy", "billing", "staging", "vpn", "backup", "token", "cache", "runbook"]
USERS = ["U1", "U2", "U3"]
SCOPES = [
    Scope(team_id="T1", channel_id="C1", kind=ConversationKind.CHANNEL),
    Scope(team_id="T1", channel_id="C2", kind=ConversationKind.CHANNEL),
    Scope(team_id="T2", channel_id="C1", kind=ConversationKind.CHANNEL),
    Scope(team_id="T1", channel_id="D1", kind=ConversationKind.DM),
    Scope(team_id="T1", channel_id="D2", kind=ConversationKind.DM),
]

exchanges = st.lists(
    st.tuples(
        st.sampled_from(USERS),
        st.sampled_from(SCOPES),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
        st.sampled_from([Vote.UP, Vote.DOWN, None]),
    ),
    max_size=25,
)


def _visible(episode: Episode, user: str, scope: Scope, shared: bool) -> bool:
    if episode.scope != scope or episode.status is EpisodeStatus.PENDING:
        return False
    if episode.requester_id == user:
        return True
    return (
        shared
        and scope.kind is ConversationKind.CHANNEL
        and episode.status is EpisodeStatus.SUCCESS
    )


async def _scenario(
    fresh_store: FreshStore,
    history: list[tuple[str, Scope, list[str], Vote | None]],
    shared: bool,
) -> None:
    async with fresh_store(MemoryConfig(share_channel_successes=shared)) as store:
        memory = Memory(store)
        stored: list[Episode] = []
        for user, scope, words, vote in history:
            if vote is None:
                await memory.ask(" ".join(words), user=user, scope=scope)
            else:
                await memory.answered(" ".join(words), user=user, scope=scope, vote=vote)
        for user in USERS:
            stored += await store.list_episodes(user, limit=100)
        for user in USERS:
            for scope in SCOPES:
                recalled = await memory.recall(
                    " ".join(WORDS),
                    user=user,
                    scope=scope,
                    now=T0 + timedelta(hours=1),
                    limit=50,
                    token_budget=1_000_000,
                )
                got = {item.episode.id for item in recalled}
                expected = {e.id for e in stored if _visible(e, user, scope, shared)}
                assert got == expected, (user, scope)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(history=exchanges, shared=st.booleans())
def test_no_episode_crosses_a_scope(
    fresh_store: FreshStore, history: list[tuple[str, Scope, list[str], Vote | None]], shared: bool
) -> None:
    asyncio.run(_scenario(fresh_store, history, shared))
