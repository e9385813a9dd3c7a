"""Block action listeners (button clicks): one callback per module."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.listeners.actions.feedback_vote import feedback_vote_callback
from bot.listeners.actions.forget_everything import forget_everything_callback
from bot.listeners.actions.forget_item import forget_item_callback
from bot.listeners.actions.reason_open import reason_open_callback
from bot.listeners.services import Services
from bot.views import FEEDBACK_ACTION_PATTERN, FORGET_EVERYTHING_ACTION_ID, FORGET_ITEM_ACTION_ID
from bot.views.reason import REASON_OPEN_ACTION_ID

__all__ = ["register"]


def register(app: AsyncApp, services: Services) -> None:
    app.action(FEEDBACK_ACTION_PATTERN)(feedback_vote_callback(services))
    app.action(FORGET_ITEM_ACTION_ID)(forget_item_callback(services))
    app.action(FORGET_EVERYTHING_ACTION_ID)(forget_everything_callback(services))
    app.action(REASON_OPEN_ACTION_ID)(reason_open_callback(services))
