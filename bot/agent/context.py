"""What one turn of the agent loop knows about the person and conversation it serves."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from memory import MemoryStore, RecalledEpisode, Scope

__all__ = ["SlackDirectory", "TurnContext"]


class SlackDirectory(Protocol):
    """The read-only Slack lookups tools may make (implemented over the Web API)."""

    async def thread_messages(self, channel_id: str, thread_ts: str) -> list[dict[str, Any]]: ...

    async def recent_messages(self, channel_id: str, *, limit: int) -> list[dict[str, Any]]:
        """The latest top-level messages of a conversation, oldest first."""
        ...

    async def user_info(self, user_id: str) -> dict[str, Any]: ...


@dataclass
class TurnContext:
    """Handed to every tool and evaluator of a turn (like pydantic-ai's ``RunContext``)."""

    requester_id: str
    scope: Scope
    thread_ts: str | None
    now: datetime
    memory: MemoryStore
    slack: SlackDirectory
    recalled: list[RecalledEpisode] = field(default_factory=list)
    """Validated episodes recalled for this question (the lesson evaluator uses them)."""
