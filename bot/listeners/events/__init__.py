"""Event listeners: one callback per module."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.events.app_home_opened import app_home_opened_callback
from bot.listeners.events.app_mention import app_mention_callback
from bot.listeners.events.assistant_thread_context_changed import (
    assistant_thread_context_changed_callback,
)
from bot.listeners.events.assistant_thread_started import assistant_thread_started_callback
from bot.listeners.events.message import message_callback
from bot.listeners.events.reactions import reaction_callback
from bot.listeners.events.uninstalled import app_uninstalled_callback, tokens_revoked_callback
from bot.listeners.services import Services

__all__ = ["register"]


_Listener = Callable[[dict[str, Any], AsyncBoltContext], Awaitable[BoltResponse | None]]


def _by_type(listeners: dict[str, _Listener]) -> _Listener:
    """One listener for several types of event, passing each on to its own: Bolt tries
    every listener registered before the one an event is for, each try costing it about
    what a small listener does, so the busiest events (messages and votes) share one
    listener, the first it tries."""

    async def on_event(body: dict[str, Any], context: AsyncBoltContext) -> BoltResponse | None:
        return await listeners[body["event"]["type"]](body, context)

    return on_event


def _with_client(
    listener: Callable[[dict[str, Any], AsyncWebClient], Awaitable[BoltResponse | None]],
) -> _Listener:
    async def on_event(body: dict[str, Any], context: AsyncBoltContext) -> BoltResponse | None:
        return await listener(body, context.client)

    return on_event


def register(app: AsyncApp, services: Services) -> None:
    busiest: dict[str, _Listener] = {
        "message": message_callback(services),
        "app_mention": app_mention_callback(services),
        "reaction_added": _with_client(reaction_callback(services, added=True)),
        "reaction_removed": _with_client(reaction_callback(services, added=False)),
    }
    app.event(re.compile(f"^(?:{'|'.join(busiest)})$"))(_by_type(busiest))
    app.event("app_home_opened")(app_home_opened_callback(services))
    app.event("assistant_thread_started")(assistant_thread_started_callback(services))
    if services.identity is None:  # OAuth mode: workspaces come and go
        app.event("app_uninstalled")(app_uninstalled_callback(services))
        app.event("tokens_revoked")(tokens_revoked_callback(services))
    app.event("assistant_thread_context_changed")(
        assistant_thread_context_changed_callback(services.observer)
    )
