"""Event listeners: one callback per module."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.listeners.events.app_home_opened import app_home_opened_callback
from bot.listeners.events.app_mention import app_mention_callback, translate_mention
from bot.listeners.events.assistant_thread_context_changed import (
    assistant_thread_context_changed_callback,
)
from bot.listeners.events.assistant_thread_started import assistant_thread_started_callback
from bot.listeners.events.message import message_callback
from bot.listeners.events.reactions import reaction_callback, reaction_vote
from bot.listeners.events.uninstalled import app_uninstalled_callback, tokens_revoked_callback
from bot.listeners.keep_before_ack import keep_before_ack
from bot.listeners.services import Services
from bot.listeners.translate import from_message
from bot.listeners.vote_before_ack import commit_vote

__all__ = ["register"]


def register(app: AsyncApp, services: Services) -> None:
    keep_message = keep_before_ack(services, from_message)
    app.event("message", middleware=[keep_message])(message_callback(services))
    keep_mention = keep_before_ack(services, translate_mention)
    app.event("app_mention", middleware=[keep_mention])(app_mention_callback(services))
    for name, added in (("reaction_added", True), ("reaction_removed", False)):
        vote = commit_vote(services, reaction_vote(added=added))
        app.event(name, middleware=[vote])(reaction_callback)
    app.event("app_home_opened")(app_home_opened_callback(services))
    app.event("assistant_thread_started")(assistant_thread_started_callback(services))
    if services.identity is None:  # OAuth mode: workspaces come and go
        app.event("app_uninstalled")(app_uninstalled_callback(services))
        app.event("tokens_revoked")(tokens_revoked_callback(services))
    app.event("assistant_thread_context_changed")(
        assistant_thread_context_changed_callback(services.observer)
    )
