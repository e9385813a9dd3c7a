"""A provider on the suite's FakeLLMServer that gives up at the first failure."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.llm import OpenAICompatibleProvider, RetryPolicy, build_llm_client
from bot.simulator import FakeLLMServer


@pytest.fixture
async def provider(fake_llm: FakeLLMServer) -> AsyncIterator[OpenAICompatibleProvider]:
    async with build_llm_client(fake_llm.base_url, "sk-test", timeout=5.0) as client:
        yield OpenAICompatibleProvider(
            client, model="fake-model", retry=RetryPolicy(max_attempts=1)
        )
