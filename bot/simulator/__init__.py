"""A local Slack workspace and a local model, for the playground, the tests and the benchmarks.

:class:`FakeSlackWebAPI` serves Slack's Web API (and Socket Mode) on 127.0.0.1,
:class:`FakeLLMServer` an OpenAI-compatible model, and :mod:`bot.simulator.slack_people` sends
the bot signed events as the workspace's people would. Nothing on the bot's own import path
imports this package (httpx keeps its ``MockTransport`` the same way: beside the real thing,
off its path)."""

from bot.simulator.model import FakeLLMServer, ScriptedReply
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI

__all__ = [
    "FakeLLMServer",
    "FakeMessage",
    "FakeSlackWebAPI",
    "ScriptedReply",
]
