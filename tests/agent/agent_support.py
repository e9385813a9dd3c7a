"""Shorthand for the agent's tests: episodes, conversations and a recording callback."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.agent import (
    Callback,
    Completion,
    CompletionRequest,
    Conversation,
    EvaluatorError,
    Message,
    ToolCall,
    ToolResult,
    TurnContext,
)
from bot.agent.result import AgentResult
from memory import ConversationKind, Episode, EpisodeStatus, RecalledEpisode, Scope
from tests.episodes import make_episode

__all__ = ["DM", "T0", "Recorder", "ask", "episode", "recalled"]

T0 = datetime(2026, 11, 23, 9, 30, tzinfo=UTC)
DM = Scope(team_id="T0TEAM", channel_id="D0DM", kind=ConversationKind.DM)


def ask(question: str) -> Conversation:
    return Conversation(messages=[Message.user(question)])


def episode(
    question: str,
    answer: str,
    status: EpisodeStatus = EpisodeStatus.FAILURE,
    *,
    lesson: str | None = None,
    requester_id: str = "U0REQUESTER",
    scope: Scope = DM,
    id: int = 1,
) -> Episode:
    return make_episode(
        question,
        answer,
        status,
        id=id,
        scope=scope,
        requester_id=requester_id,
        lesson=lesson,
        created_at=T0,
    )


def recalled(*episodes: Episode) -> list[RecalledEpisode]:
    return [
        RecalledEpisode(episode=item, score=1.0, relevance=1.0, recency=1.0, importance=0.5)
        for item in episodes
    ]


class Recorder(Callback):
    """Records every hook call as a tuple, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    async def before_loop(self, conversation: Conversation, context: TurnContext) -> None:
        self.events.append(("before_loop", len(conversation.messages)))

    async def after_loop(self, result: AgentResult, context: TurnContext) -> None:
        self.events.append(("after_loop", result.stop_reason))

    async def before_llm_call(self, request: CompletionRequest, context: TurnContext) -> None:
        self.events.append(("before_llm_call", len(request.messages)))

    async def after_llm_call(self, completion: Completion, context: TurnContext) -> None:
        self.events.append(("after_llm_call", len(completion.tool_calls)))

    async def before_tool_call(self, call: ToolCall, context: TurnContext) -> None:
        self.events.append(("before_tool_call", call.name))

    async def after_tool_call(self, result: ToolResult, context: TurnContext) -> None:
        error = result.error.code if result.error else None
        self.events.append(("after_tool_call", result.call.name, error))

    async def on_evaluator_error(self, error: EvaluatorError, context: TurnContext) -> None:
        self.events.append(("evaluator_error", error.evaluator))
