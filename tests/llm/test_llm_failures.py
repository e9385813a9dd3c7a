"""Failures over real HTTP: retried when worth it, then ModelUnavailable within the budget."""

from __future__ import annotations

import logging

import httpx
import pytest

from bot.agent.messages import CompletionRequest, Message
from bot.agent.provider import ModelUnavailable
from bot.llm import (
    ModelRequestRejected,
    OpenAICompatibleProvider,
    RetryPolicy,
    build_llm_client,
)
from bot.simulator import FakeLLMServer, ScriptedReply

QUESTION = CompletionRequest(messages=[Message.user("is the build green")])


def retrying(client: httpx.AsyncClient, **policy: float) -> OpenAICompatibleProvider:
    """A provider on ``client`` retrying as ``RetryPolicy(**policy)`` says."""
    return OpenAICompatibleProvider(client, model="m", retry=RetryPolicy(**policy))


async def test_429_with_retry_after_is_retried_then_answers(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(ScriptedReply.error(429, retry_after="0"))

    completion = await provider.complete(QUESTION)

    assert completion.content == "Answer: is the build green"
    assert len(fake_llm.requests) == 2


async def test_retry_after_beyond_the_budget_gives_up_without_waiting(
    fake_llm: FakeLLMServer, client: httpx.AsyncClient
) -> None:
    """Backoff alone would retry within a hundredth of a second; Retry-After forbids it."""
    provider = retrying(client, max_attempts=5, total_budget_seconds=1.0, base_delay=0.01)
    fake_llm.script(ScriptedReply.error(429, retry_after="30"))

    with pytest.raises(ModelUnavailable, match="budget"):
        await provider.complete(QUESTION)

    assert len(fake_llm.requests) == 1


async def test_persistent_503_ends_in_model_unavailable_after_max_attempts(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.down = True

    with pytest.raises(ModelUnavailable, match="503") as unavailable:
        await provider.complete(QUESTION)

    assert not isinstance(unavailable.value, ModelRequestRejected)
    assert len(fake_llm.requests) == 3


async def test_persistent_503_stops_when_the_budget_runs_out(
    fake_llm: FakeLLMServer, client: httpx.AsyncClient
) -> None:
    provider = retrying(client, max_attempts=1000, total_budget_seconds=0.2, base_delay=0.02)
    fake_llm.down = True

    with pytest.raises(ModelUnavailable, match="budget"):
        async for _ in provider.stream(QUESTION):
            pass

    assert 1 < len(fake_llm.requests) < 1000


async def test_500_is_retried(fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider) -> None:
    fake_llm.script(ScriptedReply.error(500), ScriptedReply.error(502))

    assert (await provider.complete(QUESTION)).content == "Answer: is the build green"
    assert len(fake_llm.requests) == 3


async def test_400_is_rejected_at_once_with_its_status_and_error_type_never_its_message(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    quoting_the_prompt = f"prompt too long: {QUESTION.messages[-1].content}"
    fake_llm.script(ScriptedReply.error(400, message=quoting_the_prompt))

    with pytest.raises(ModelRequestRejected) as rejected:
        await provider.complete(QUESTION)

    assert rejected.value.status == 400
    assert str(rejected.value) == (
        "the model server rejected the request (HTTP 400): invalid_request_error"
    )
    assert len(fake_llm.requests) == 1


async def test_rejection_in_a_stream_is_raised_before_any_delta(
    fake_llm: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    fake_llm.script(ScriptedReply.error(404, message="model 'test-model' not found"))

    with pytest.raises(ModelRequestRejected) as rejected:
        await anext(provider.stream(QUESTION))

    assert rejected.value.status == 404


async def test_connection_refused_is_model_unavailable(quick_retries: RetryPolicy) -> None:
    async with FakeLLMServer() as stopped:
        base_url = stopped.base_url
    async with build_llm_client(base_url, "key", timeout=2.0) as client:
        provider = OpenAICompatibleProvider(client, model="m", retry=quick_retries)

        with pytest.raises(ModelUnavailable, match="could not reach"):
            await provider.complete(QUESTION)


async def test_a_server_slower_than_the_timeout_is_model_unavailable(
    fake_llm: FakeLLMServer, quick_retries: RetryPolicy
) -> None:
    fake_llm.latency_seconds = 30.0
    async with build_llm_client(fake_llm.base_url, "key", timeout=0.1) as client:
        provider = OpenAICompatibleProvider(client, model="m", retry=quick_retries)

        with pytest.raises(ModelUnavailable, match="ReadTimeout"):
            await provider.complete(QUESTION)

    assert len(fake_llm.requests) == 3


async def test_the_api_key_appears_in_no_log_record_nor_error(
    fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "sk-live-supersecret-000111"
    fake_llm.script(ScriptedReply.error(503), ScriptedReply.error(401, message=f"bad key {secret}"))
    caplog.set_level(logging.DEBUG)
    async with build_llm_client(fake_llm.base_url, secret, timeout=2.0) as client:
        provider = OpenAICompatibleProvider(client, model="m", retry=RetryPolicy(base_delay=0.01))

        with pytest.raises(ModelRequestRejected) as rejected:
            await provider.complete(QUESTION)

    assert caplog.records, "httpx and the retry loop log at DEBUG and WARNING"
    assert all(secret not in record.getMessage() for record in caplog.records)
    assert secret not in str(rejected.value)
    assert rejected.value.status == 401
