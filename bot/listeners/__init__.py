"""Bolt listeners: thin translations from Slack payloads to calls on the domain."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.listeners import actions, commands, events, views
from bot.listeners.errors import listener_failed
from bot.listeners.services import Services
from bot.oauth.revocations import guard_revoked_tokens

__all__ = ["Services", "register"]


def register(app: AsyncApp, services: Services) -> None:
    if services.identity is None:  # OAuth mode
        app.middleware(guard_revoked_tokens(services.revoked))
    events.register(app, services)
    commands.register(app, services)
    actions.register(app, services)
    views.register(app, services)
    app.error(listener_failed)
