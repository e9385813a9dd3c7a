"""In-process fakes for testing code built on the agent (like pydantic-ai's FunctionModel).

* :class:`FunctionProvider` answers every request with a function of the request.
* :class:`ScriptedProvider` plays a list of replies in order.
* :class:`FakeMemory` and :class:`FakeSlack` stand in for the memory store and Slack lookups.
* :func:`make_context` builds an :class:`AssistantContext` from them.
* :class:`Recorder` records every callback hook, :class:`Collector` the streamed text;
  :func:`ask` and :func:`recalled` are shorthand.
"""

from __future__ import annotations

import inspect
import json
import re
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from datetime import datetime
from itertools import count
from typing import Any

from bot.agent import (
    Callback,
    Conversation,
    EvaluatorError,
    Message,
    ToolResult,
    TurnContext,
)
from bot.agent.loop import Agent
from bot.agent.messages import Completion, CompletionRequest, Delta, ToolCall
from bot.agent.provider import Provider
from bot.agent.result import AgentResult
from bot.agent.tools.guard import GuardPolicy
from bot.agent.tools.loop_detector import LoopMemory
from bot.assistant.context import AssistantContext, SlackDirectory
from memory import (
    AgentMemory,
    Episode,
    EpisodeStatus,
    RecalledEpisode,
    RecallRequest,
    Scope,
    Visibility,
    WisdomNote,
)
from tests.episodes import DM, T0

__all__ = [
    "Collector",
    "FakeMemory",
    "FakeSlack",
    "FunctionProvider",
    "ModelFunction",
    "Recorder",
    "ScriptedProvider",
    "ask",
    "make_agent",
    "make_context",
    "recalled",
    "reply",
    "tool_call",
]

ModelFunction = Callable[[CompletionRequest], Completion | Awaitable[Completion]]
_ids = count(1)
_CHUNK = re.compile(r"\S+\s*|\s+")


def tool_call(
    name: str, arguments: dict[str, Any] | str | None = None, *, id: str = ""
) -> ToolCall:
    """A tool call as a model would write it (``arguments`` as JSON text or a dict)."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return ToolCall(id=id or f"call_{next(_ids)}", name=name, arguments=raw)


def ask(question: str) -> Conversation:
    """A conversation of one question."""
    return Conversation(messages=[Message.user(question)])


def recalled(*episodes: Episode) -> list[RecalledEpisode]:
    """The episodes as recall returns them, all equally relevant."""
    return [
        RecalledEpisode(episode=item, score=1.0, relevance=1.0, recency=1.0, importance=0.5)
        for item in episodes
    ]


def reply(content: str = "", *calls: ToolCall) -> Completion:
    """A model reply with text and/or tool calls."""
    return Completion(content=content, tool_calls=list(calls))


class FunctionProvider:
    """A Provider whose replies come from ``function(request)`` (sync or async).

    Streaming splits the reply's text into word-sized deltas, then sends the final one.
    Every request is kept in ``requests``; an exception the function raises (such as
    ``ModelUnavailable``) propagates from ``complete`` and ``stream``.
    """

    def __init__(self, function: ModelFunction) -> None:
        self.function = function
        self.requests: list[CompletionRequest] = []
        self.streamed_requests = 0

    @property
    def calls(self) -> int:
        return len(self.requests)

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request.model_copy(deep=True))
        completion = self.function(request)
        if inspect.isawaitable(completion):
            completion = await completion
        return completion

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        self.streamed_requests += 1
        completion = await self.complete(request)
        for chunk in _CHUNK.findall(completion.content):
            yield Delta(content=chunk)
        yield Delta(final=completion)


class ScriptedProvider(FunctionProvider):
    """Replies from a script, in order: a Completion, a string (text) or an exception."""

    def __init__(self, script: Iterable[Completion | str | BaseException]) -> None:
        self._script = list(script)
        super().__init__(self._next)

    def _next(self, request: CompletionRequest) -> Completion:
        if not self._script:
            raise AssertionError("the scripted model was called more often than scripted")
        item = self._script.pop(0)
        if isinstance(item, BaseException):
            raise item
        return reply(item) if isinstance(item, str) else item

    @property
    def remaining(self) -> int:
        return len(self._script)


class FakeSlack:
    """Slack lookups from dictionaries (``threads`` keyed by ``(channel, thread_ts)``)."""

    def __init__(
        self,
        *,
        threads: dict[tuple[str, str], list[dict[str, Any]]] | None = None,
        users: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.threads = threads or {}
        self.users = users or {}
        self.lookups: list[tuple[str, ...]] = []

    async def thread_messages(self, channel_id: str, thread_ts: str) -> list[dict[str, Any]]:
        self.lookups.append(("thread", channel_id, thread_ts))
        return list(self.threads.get((channel_id, thread_ts), []))

    async def user_info(self, user_id: str) -> dict[str, Any]:
        self.lookups.append(("user", user_id))
        if user_id not in self.users:
            raise LookupError(f"user_not_found: {user_id}")
        return {"ok": True, "user": self.users[user_id]}


class FakeMemory:
    """:class:`memory.AgentMemory` over a fixed list of episodes (validated, same person, same
    scope), with counters: all a turn of the agent may use of memory."""

    def __init__(self, episodes: Sequence[Episode] = ()) -> None:
        self.episodes = list(episodes)
        self.recall_requests: list[RecallRequest] = []
        self.counters: Counter[str] = Counter()

    @property
    def visibility(self) -> Visibility:
        return Visibility()

    async def recall(self, request: RecallRequest) -> list[RecalledEpisode]:
        self.recall_requests.append(request)
        return recalled(
            *(
                episode
                for episode in self.episodes
                if episode.scope == request.scope
                and episode.requester_id == request.requester_id
                and episode.status is not EpisodeStatus.PENDING
            )
        )[: request.limit]

    async def wisdom(self, scope: Scope, user_id: str) -> list[WisdomNote]:
        return []

    async def count(self, counter: str, *, by: int = 1) -> None:
        self.counters[counter] += by


class Collector:
    """An ``on_text`` callback that keeps every piece of text the agent streams."""

    def __init__(self) -> None:
        self.pieces: list[str] = []

    async def __call__(self, text: str) -> None:
        self.pieces.append(text)

    @property
    def text(self) -> str:
        return "".join(self.pieces)


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


def make_agent(provider: Provider, **options: Any) -> Agent:
    """An Agent for tests: the guard fully on and a loop memory of its own, unless given."""
    options.setdefault("guard", GuardPolicy())
    options.setdefault("loop_memory", LoopMemory())
    return Agent(provider, **options)


def make_context(
    *,
    requester_id: str = "U1",
    scope: Scope = DM,
    thread_ts: str | None = None,
    now: datetime = T0,
    memory: AgentMemory | None = None,
    slack: SlackDirectory | None = None,
    recalled: Sequence[RecalledEpisode] = (),
) -> AssistantContext:
    """An AssistantContext for tests: a DM with fake memory and Slack unless told otherwise."""
    return AssistantContext(
        thread=f"{scope.channel_id}:{thread_ts or 'top'}",
        now=now,
        requester_id=requester_id,
        scope=scope,
        thread_ts=thread_ts,
        memory=memory or FakeMemory(),
        slack=slack or FakeSlack(),
        recalled=list(recalled),
    )
