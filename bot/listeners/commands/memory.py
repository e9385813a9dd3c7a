"""``/memory``: what the bot remembers about the person in this conversation (ephemeral).

Rated answers (with their outcome and lesson) and the conversation's wisdom notes, each
with a "Forget" button (:mod:`bot.listeners.actions.forget_item`). Only the person's own
memories of this conversation are listed; the Home tab shows all their conversations.
Each is one ``memory`` event line.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.listeners.deadline import STORE_WITHIN_SECONDS
from bot.listeners.services import Services
from bot.listeners.workspace import scope_org
from bot.views.limits import SECTION_TEXT_LIMIT, clip
from bot.views.memory_list import EMPTY_TEXT, memory_list_blocks
from memory import (
    ConversationKind,
    Episode,
    EpisodeStatus,
    MemoryStore,
    Scope,
    WisdomNote,
)
from memory.text import shorten

__all__ = [
    "LISTING",
    "conversation_memory",
    "conversation_scope",
    "memory_callback",
    "memory_message",
    "memory_summary",
]

LISTING = "I'm looking up what I remember about you here; the list will show here shortly."
LISTED_EPISODES = 100
"""Read at most this many rated answers; the view shows fewer and counts the rest."""
LINE_CHARS = 80


def conversation_scope(team_id: str, channel_id: str, enterprise_id: str = "") -> Scope:
    """The memory scope of a conversation Slack names by team and channel (``D…`` is a DM),
    in the org ``enterprise_id`` (Enterprise Grid)."""
    kind = ConversationKind.DM if channel_id.startswith("D") else ConversationKind.CHANNEL
    return Scope(team_id=team_id, channel_id=channel_id, kind=kind, enterprise_id=enterprise_id)


async def conversation_memory(
    memory: MemoryStore, user_id: str, scope: Scope
) -> tuple[list[Episode], list[WisdomNote]]:
    """The person's rated answers (newest first) and wisdom notes in one conversation."""
    episodes = await memory.list_episodes(user_id, scope=scope, limit=LISTED_EPISODES)
    notes = await memory.wisdom(scope, user_id)
    return episodes, notes


def memory_summary(episodes: Sequence[Episode], notes: Sequence[WisdomNote] = ()) -> str:
    """The plain-text version of the list (notifications, and clients without blocks)."""
    if not episodes and not notes:
        return EMPTY_TEXT
    lines = [f"📝 {shorten(note.text, LINE_CHARS)}" for note in notes]
    lines += [
        f"{'👍' if episode.status is EpisodeStatus.SUCCESS else '👎'} "
        f"{shorten(episode.question, LINE_CHARS)}"
        for episode in episodes
    ]
    return clip("What I remember about you here:\n" + "\n".join(lines), SECTION_TEXT_LIMIT)


def memory_message(episodes: Sequence[Episode], notes: Sequence[WisdomNote]) -> dict[str, Any]:
    """The ephemeral message's ``text`` and ``blocks``."""
    return {"text": memory_summary(episodes, notes), "blocks": memory_list_blocks(episodes, notes)}


def memory_callback(services: Services) -> Callable[..., Awaitable[None]]:
    async def show(
        listing: asyncio.Future[tuple[list[Episode], list[WisdomNote]]], respond: AsyncRespond
    ) -> None:
        episodes, notes = await listing
        await respond(
            replace_original=True, response_type="ephemeral", **memory_message(episodes, notes)
        )

    async def on_memory(ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond) -> None:
        """Acknowledge with the list, or, when the store takes longer to read it, with a
        line saying so, replaced by the list once it is read (in a task: Bolt answers
        Slack once this returns)."""
        team_id, channel_id, user_id = command["team_id"], command["channel_id"], command["user_id"]
        async with services.observer.event(
            "memory", team=team_id, channel=channel_id, user=user_id
        ):
            scope = conversation_scope(team_id, channel_id, scope_org(services, command))
            listing = asyncio.ensure_future(conversation_memory(services.memory, user_id, scope))
            done, _ = await asyncio.wait({listing}, timeout=STORE_WITHIN_SECONDS)
            if done:
                await ack(response_type="ephemeral", **memory_message(*listing.result()))
                return
            await ack(text=LISTING, response_type="ephemeral")
            services.inflight.start(show(listing, respond))

    return on_memory
