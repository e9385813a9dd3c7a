"""An httpx client and a provider on the suite's FakeLLMServer, with retries too quick to notice."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from bot.llm import (
    OpenAICompatibleProvider,
    RetryPolicy,
    build_llm_client,
)
from bot.simulator import FakeLLMServer

API_KEY = "sk-test-do-not-log-0123456789"


@pytest.fixture
async def client(fake_llm: FakeLLMServer) -> AsyncIterator[httpx.AsyncClient]:
    async with build_llm_client(fake_llm.base_url, API_KEY, timeout=5.0) as client:
        yield client


@pytest.fixture
def quick_retries() -> RetryPolicy:
    """Three attempts, a hundredth of a second apart."""
    return RetryPolicy(max_attempts=3, total_budget_seconds=2.0, base_delay=0.01, max_delay=0.02)


@pytest.fixture
def provider(client: httpx.AsyncClient, quick_retries: RetryPolicy) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(client, model="test-model", retry=quick_retries)
