"""Event listeners: one callback per module."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

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


def register(app: AsyncApp, services: Services) -> None:
    # Bolt tries every listener registered before the one an event is for, each try costing
    # about what a small listener does: the busiest events come first, a 👍 or 👎 (whose
    # 200 waits for its commit) before a message (whose answer costs far more than a try).
    app.event("reaction_added")(reaction_callback(services, added=True))
    app.event("message")(message_callback(services))
    app.event("app_mention")(app_mention_callback(services))
    app.event("reaction_removed")(reaction_callback(services, added=False))
    app.event("app_home_opened")(app_home_opened_callback(services))
    app.event("assistant_thread_started")(assistant_thread_started_callback(services))
    if services.identity is None:  # OAuth mode: workspaces come and go
        app.event("app_uninstalled")(app_uninstalled_callback(services))
        app.event("tokens_revoked")(tokens_revoked_callback(services))
    app.event("assistant_thread_context_changed")(
        assistant_thread_context_changed_callback(services.observer)
    )
