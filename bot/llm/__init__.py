"""LLM providers: OpenAI's chat-completions API over httpx."""

from bot.llm.client import build_llm_client
from bot.llm.errors import ModelRequestRejected
from bot.llm.openai_compatible import OpenAICompatibleProvider
from bot.llm.probe import ModelStatus, describe_endpoint, probe_model
from bot.llm.retry import RetryPolicy

__all__ = [
    "ModelRequestRejected",
    "ModelStatus",
    "OpenAICompatibleProvider",
    "RetryPolicy",
    "build_llm_client",
    "describe_endpoint",
    "probe_model",
]
