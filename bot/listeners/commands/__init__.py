"""Slash command listeners: one callback per module."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.listeners.commands.forget import forget_callback
from bot.listeners.commands.memory import memory_callback
from bot.listeners.services import Services

__all__ = ["register"]


def register(app: AsyncApp, services: Services) -> None:
    app.command("/forget")(forget_callback(services))
    app.command("/memory")(memory_callback(services))
