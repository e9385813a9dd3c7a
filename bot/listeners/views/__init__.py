"""View submission listeners (forms): one callback per module."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.listeners.services import Services
from bot.listeners.views.reason_submitted import reason_submitted_callback
from bot.views.reason import REASON_VIEW_CALLBACK_ID

__all__ = ["register"]


def register(app: AsyncApp, services: Services) -> None:
    app.view(REASON_VIEW_CALLBACK_ID)(reason_submitted_callback(services))
