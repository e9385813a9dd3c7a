"""In-process fakes for testing code built on the agent (like pydantic-ai's FunctionModel).

* :class:`FunctionProvider` answers every request with a function of the request.
* :class:`ScriptedProvider` plays a list of replies in order.
* :class:`FakeMemory` and :class:`FakeSlack` stand in for the memory store and Slack lookups.
* :func:`make_context` builds an :class:`AssistantContext` from them.
"""

from __future__ import annotations

import inspect
import json
import re
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from datetime import UTC, datetime
from itertools import count
from typing import Any

from bot.agent.loop import Agent
from bot.agent.messages import Completion, CompletionRequest, Delta, ToolCall
from bot.agent.provider import Provider
from bot.agent.tools.guard import GuardPolicy
from bot.agent.tools.loop_detector import LoopMemory
from bot.assistant.context import AssistantContext, SlackDirectory
from memory import (
    AgentMemory,
    ConversationKind,
    Episode,
    EpisodeStatus,
    RecalledEpisode,
    RecallRequest,
    Scope,
    Visibility,
    WisdomNote,
)

__all__ = [
    "FakeMemory",
    "FakeSlack",
    "FunctionProvider",
    "ModelFunction",
    "ScriptedProvider",
    "make_agent",
    "make_context",
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
        return [
            RecalledEpisode(episode=episode, score=1.0, relevance=1.0, recency=1.0, importance=0.5)
            for episode in self.episodes
            if episode.scope == request.scope
            and episode.requester_id == request.requester_id
            and episode.status is not EpisodeStatus.PENDING
        ][: request.limit]

    async def wisdom(self, scope: Scope, user_id: str) -> list[WisdomNote]:
        return []

    async def count(self, counter: str, *, by: int = 1) -> None:
        self.counters[counter] += by


def make_agent(provider: Provider, **options: Any) -> Agent:
    """An Agent for tests: the guard fully on and a loop memory of its own, unless given."""
    options.setdefault("guard", GuardPolicy())
    options.setdefault("loop_memory", LoopMemory())
    return Agent(provider, **options)


def make_context(
    *,
    requester_id: str = "U0REQUESTER",
    scope: Scope | None = None,
    thread_ts: str | None = None,
    now: datetime | None = None,
    memory: AgentMemory | None = None,
    slack: SlackDirectory | None = None,
    recalled: Sequence[RecalledEpisode] = (),
) -> AssistantContext:
    """An AssistantContext for tests: a DM with fake memory and Slack unless told otherwise."""
    scope = scope or Scope(team_id="T0TEAM", channel_id="D0DM", kind=ConversationKind.DM)
    return AssistantContext(
        thread=f"{scope.channel_id}:{thread_ts or 'top'}",
        now=now or datetime(2026, 11, 23, 9, 30, tzinfo=UTC),
        requester_id=requester_id,
        scope=scope,
        thread_ts=thread_ts,
        memory=memory or FakeMemory(),
        slack=slack or FakeSlack(),
        recalled=list(recalled),
    )
