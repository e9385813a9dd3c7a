"""LLM providers: OpenAI's chat-completions API over httpx, and a fake server for tests."""

from bot.llm.client import build_llm_client
from bot.llm.errors import ModelRequestRejected
from bot.llm.fake_server import FakeLLMServer, ScriptedReply
from bot.llm.openai_compatible import OpenAICompatibleProvider
from bot.llm.retry import RetryPolicy

__all__ = [
    "FakeLLMServer",
    "ModelRequestRejected",
    "OpenAICompatibleProvider",
    "RetryPolicy",
    "ScriptedReply",
    "build_llm_client",
]
