"""``/memory``: show the person what the bot remembers about them (ephemeral)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck

from bot.listeners.services import Services
from memory import Episode, EpisodeStatus

__all__ = ["memory_callback", "memory_summary"]

SHOWN = 10
QUESTION_CHARS = 80


def _line(episode: Episode) -> str:
    mark = "👍" if episode.status is EpisodeStatus.SUCCESS else "👎"
    question = " ".join(episode.question.split())
    if len(question) > QUESTION_CHARS:
        question = question[: QUESTION_CHARS - 1] + "…"
    return f"{mark} {question}"


def memory_summary(episodes: list[Episode]) -> str:
    if not episodes:
        return "I don't remember anything about you yet: react 👍 or 👎 to my answers to teach me."
    lines = "\n".join(_line(episode) for episode in episodes[:SHOWN])
    return f"Answers you rated (latest first):\n{lines}\n`/forget` erases all of it."


def memory_callback(services: Services) -> Callable[..., Awaitable[None]]:
    async def on_memory(ack: AsyncAck, command: dict[str, Any]) -> None:
        episodes = await services.memory.list_episodes(command["user_id"], limit=SHOWN)
        await ack(text=memory_summary(episodes), response_type="ephemeral")

    return on_memory
