"""What every benchmark shares: figures and targets, percentiles, and the bot under test.

The bot under test is the real HTTP server (:class:`bot.server.HttpServer`) wired to the
test suite's fakes (:class:`FakeSlackWebAPI`, :class:`FakeLLMServer`) and driven with the
suite's signed requests (:mod:`tests.support.harness`), so a benchmark measures the code
path production runs, on 127.0.0.1 only.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import BaseModel

from bot.agent import GuardPolicy
from bot.app import Bot
from bot.server import HttpServer
from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.slack.streaming import THINKING_PLACEHOLDER
from tests.support.harness import FAST_RETRIES, SignedSlack, fakes_settings

__all__ = [
    "BENCH_DIR",
    "BotUnderTest",
    "Figure",
    "Target",
    "bot_under_test",
    "percentile",
    "reaction_event",
]

BENCH_DIR = Path(tempfile.gettempdir()) / "reaction-memory-bot-bench"
"""Where the bot's log of a run goes, and where built stores are cached between runs."""


class Target(BaseModel):
    """What a figure should be: at most ``bound`` (``<=``), or at least it (``>=``)."""

    comparison: Literal["<=", ">="]
    bound: float

    @classmethod
    def at_most(cls, bound: float) -> Target:
        return cls(comparison="<=", bound=bound)

    @classmethod
    def at_least(cls, bound: float) -> Target:
        return cls(comparison=">=", bound=bound)

    def met(self, value: float) -> bool:
        return value <= self.bound if self.comparison == "<=" else value >= self.bound


class Figure(BaseModel):
    """One measured number, printed as ``name value unit (detail; target)``."""

    name: str
    value: float
    unit: str
    detail: str = ""
    target: Target | None = None

    def line(self) -> str:
        notes = [self.detail] if self.detail else []
        if self.target is not None:
            verdict = "met" if self.target.met(self.value) else "MISSED"
            notes.append(f"target {self.target.comparison} {self.target.bound:g}: {verdict}")
        text = f"{self.name} {_number(self.value)} {self.unit}"
        return f"{text} ({'; '.join(notes)})" if notes else text


def _number(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` 0.5 for p50, 0.99 for p99)."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


@dataclass
class BotUnderTest:
    """The running bot, its fakes, and a client sending what Slack would send."""

    server: HttpServer
    fake_slack: FakeSlackWebAPI
    fake_llm: FakeLLMServer
    slack: SignedSlack


@asynccontextmanager
async def bot_under_test(
    *,
    before_start: Callable[[Bot], None] | None = None,
    guard: GuardPolicy | None = None,
    settings: Mapping[str, Any] | None = None,
) -> AsyncIterator[BotUnderTest]:
    """Fake Slack, fake LLM, the real bot server on a new SQLite file (in a temporary
    directory, removed afterwards), and a signed client.

    ``before_start`` may register listeners ahead of the bot's own (Bolt runs the first
    listener that matches), as :func:`tests.support.harness.start_bot` builds the server.
    ``guard`` replaces the bot's tool guard policy; ``settings`` overrides settings (a real
    model's ``llm_base_url`` and ``llm_model`` too)."""
    async with (
        FakeSlackWebAPI(placeholder_texts={THINKING_PLACEHOLDER}) as fake_slack,
        FakeLLMServer() as fake_llm,
        httpx.AsyncClient(timeout=30.0) as http,
    ):
        with tempfile.TemporaryDirectory(prefix="bench-bot-") as directory:
            configured = fakes_settings(
                fake_slack,
                fake_llm,
                **{
                    "slack_bot_token": fake_slack.token,
                    "bot_db_path": Path(directory) / "bot.db",
                    **(settings or {}),
                },
            )
            bot = Bot(configured, llm_retry=FAST_RETRIES, guard=guard)
            if before_start is not None:
                before_start(bot)
            server = HttpServer(bot, host="127.0.0.1", port=0, grace_seconds=5.0)
            await server.start()
            try:
                slack = SignedSlack(server, fake_slack, http)
                yield BotUnderTest(server, fake_slack, fake_llm, slack)
            finally:
                await server.stop()


def reaction_event(
    voter: str, channel: str, ts: str, *, reaction: str = "+1", author: str = "U0000BOT"
) -> dict[str, Any]:
    """A ``reaction_added`` event on the message ``ts`` of ``channel``."""
    return {
        "type": "reaction_added",
        "user": voter,
        "reaction": reaction,
        "item_user": author,
        "item": {"type": "message", "channel": channel, "ts": ts},
        "event_ts": ts,
    }
