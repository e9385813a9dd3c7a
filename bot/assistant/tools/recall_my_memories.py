"""Search the requester's own validated experience in the current conversation."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from bot.agent.tools.registry import tool
from bot.assistant.context import AssistantContext
from memory import EpisodeStatus, RecallRequest

__all__ = ["Memories", "MemoryItem", "RecallArgs", "recall_my_memories"]

_OUTCOME: dict[EpisodeStatus, Literal["worked", "did_not_work"]] = {
    EpisodeStatus.SUCCESS: "worked",
    EpisodeStatus.FAILURE: "did_not_work",
}


class RecallArgs(BaseModel):
    query: str = Field(min_length=1, max_length=500, description="what to look for")
    limit: int = Field(default=5, ge=1, le=10, description="how many memories at most")


class MemoryItem(BaseModel):
    question: str
    answer: str
    outcome: Literal["worked", "did_not_work"]
    lesson: str | None = None
    validated_at: datetime | None = None


class Memories(BaseModel):
    memories: list[MemoryItem]


@tool(
    description="Search earlier answers this person rated (👍 worked / 👎 did not work) in "
    "this conversation, with the lessons learned from failures."
)
async def recall_my_memories(ctx: AssistantContext, args: RecallArgs) -> Memories:
    recalled = await ctx.memory.recall(
        RecallRequest(
            scope=ctx.scope,
            requester_id=ctx.requester_id,
            text=args.query,
            limit=args.limit,
            now=ctx.now,
        )
    )
    return Memories(
        memories=[
            MemoryItem(
                question=item.episode.question,
                answer=item.episode.answer,
                outcome=_OUTCOME[item.episode.status],
                lesson=item.episode.lesson,
                validated_at=item.episode.validated_at,
            )
            for item in recalled
            # Only the asker's own: the store filters already, the rule is applied again.
            if item.episode.requester_id == ctx.requester_id
            and ctx.memory.visibility.may_see(
                item.episode, viewer_id=ctx.requester_id, scope=ctx.scope
            )
        ]
    )
