"""A "Forget" button next to one remembered item, in ``/memory`` or on the Home tab.

Only that item goes, and only if the clicking person owns it (the store checks); then the
list they were looking at is shown again without it: the ephemeral ``/memory`` message is
replaced through its response URL, the Home tab is republished. Each click is one
``forget_item`` event line.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.commands.memory import conversation_memory, conversation_scope, memory_message
from bot.listeners.events.app_home_opened import publish_home
from bot.listeners.services import Services
from bot.listeners.workspace import listed_workspace, payload_team, scope_org
from bot.views import ItemKind, ItemRef
from memory import MemoryStore

__all__ = ["forget_item", "forget_item_callback"]

log = logging.getLogger(__name__)


async def forget_item(memory: MemoryStore, user_id: str, ref: ItemRef) -> bool:
    """Erase one of ``user_id``'s items; False when it is not theirs or already gone."""
    if ref.kind is ItemKind.EPISODE:
        return await memory.forget_episode(user_id, ref.id)
    return await memory.forget_wisdom(user_id, ref.id)


def forget_item_callback(services: Services) -> Callable[..., Awaitable[None]]:
    async def show_again(
        body: dict[str, Any], user_id: str, client: AsyncWebClient, respond: AsyncRespond
    ) -> None:
        team_id = payload_team(body)
        if (body.get("container") or {}).get("type") == "view":
            workspace = listed_workspace(services, team_id)
            await publish_home(client, services.memory, user_id, team_id=workspace)
            return
        channel_id = (body.get("channel") or {}).get("id")
        if not team_id or not channel_id:
            return
        scope = conversation_scope(team_id, channel_id, scope_org(services, body))
        episodes, notes = await conversation_memory(services.memory, user_id, scope)
        await respond(
            replace_original=True, response_type="ephemeral", **memory_message(episodes, notes)
        )

    async def work(
        body: dict[str, Any], ref: ItemRef, client: AsyncWebClient, respond: AsyncRespond
    ) -> None:
        user_id = body["user"]["id"]
        async with services.observer.event("forget_item", user=user_id) as record:
            if not await forget_item(services.memory, user_id, ref):
                record.outcome, record.reason = "ignored", "not_theirs_or_gone"
            try:
                await show_again(body, user_id, client, respond)
            except Exception as error:  # the item is gone either way; the list stays stale
                log.warning("could not show the list again (%s)", type(error).__name__)

    async def on_forget_item(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        client: AsyncWebClient,
        respond: AsyncRespond,
    ) -> None:
        await ack()
        ref = ItemRef.parse(action.get("value"))
        if ref is not None and (body.get("user") or {}).get("id"):
            services.inflight.start(work(body, ref, client, respond))
        else:
            services.observer.ignored("forget_item", "malformed")

    return on_forget_item
