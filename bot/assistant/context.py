"""What the assistant's tools, evaluator and callbacks know about a turn: the asker, the
conversation's scope, the memory store, read-only Slack lookups and the recalled episodes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.agent.context import TurnContext
from memory import AgentMemory, RecalledEpisode, Scope

__all__ = ["AssistantContext", "SlackDirectory"]


class SlackDirectory(Protocol):
    """The read-only Slack lookups tools may make (implemented over the Web API)."""

    async def thread_messages(self, channel_id: str, thread_ts: str) -> list[dict[str, Any]]: ...

    async def user_info(self, user_id: str) -> dict[str, Any]: ...


@dataclass
class AssistantContext(TurnContext):
    """The core's turn context plus what answering one person's Slack message involves."""

    requester_id: str
    scope: Scope
    thread_ts: str | None
    memory: AgentMemory
    slack: SlackDirectory
    recalled: list[RecalledEpisode] = field(default_factory=list)
    """Validated episodes recalled for this question (the lesson evaluator uses them)."""
