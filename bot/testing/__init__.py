"""Stand-ins for Slack and for a model, and drivers that act as people: for tests, the
playground and the benchmarks only. Nothing on the bot's own import path imports this package
(httpx keeps its ``MockTransport`` the same way: beside the real thing, off its path)."""

from bot.testing.block_kit import block_kit_problems
from bot.testing.fake_llm import FakeLLMServer, ScriptedReply
from bot.testing.fake_slack import FakeMessage, FakeSlackWebAPI

__all__ = [
    "FakeLLMServer",
    "FakeMessage",
    "FakeSlackWebAPI",
    "ScriptedReply",
    "block_kit_problems",
]
