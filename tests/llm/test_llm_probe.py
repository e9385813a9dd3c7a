"""``probe_model``: what ``GET /models`` says about the configured model, for the operator."""

from __future__ import annotations

import httpx
import pytest

from bot.llm import describe_endpoint, probe_model
from bot.simulator import FakeLLMServer


def client(handler: httpx.MockTransport) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url="http://llm.test/v1", transport=handler)


def listing(*ids: str) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/models"
        return httpx.Response(200, json={"object": "list", "data": [{"id": i} for i in ids]})

    return httpx.MockTransport(answer)


@pytest.mark.parametrize("listed", ["llama3.1", "llama3.1:latest"])
async def test_a_listed_model_is_ok_including_ollamas_latest_tag(listed: str) -> None:
    async with client(listing("qwen2.5", listed)) as http:
        status = await probe_model(http, "llama3.1")

    assert status.ok
    assert status.listed is True


async def test_a_model_the_endpoint_does_not_list_says_how_to_pull_it() -> None:
    async with client(listing("qwen2.5:latest", "llama3.1:8b")) as http:
        status = await probe_model(http, "llama3.1")

    assert not status.ok
    assert status.listed is False
    assert status.problem is not None
    assert "ollama pull llama3.1" in status.problem


async def test_refused_credentials_name_the_setting() -> None:
    refusing = httpx.MockTransport(lambda request: httpx.Response(401, json={"error": "no"}))
    async with client(refusing) as http:
        status = await probe_model(http, "gpt-4o-mini")

    assert status.reachable
    assert status.problem is not None
    assert "LLM_API_KEY" in status.problem


async def test_an_endpoint_that_does_not_list_models_is_given_the_benefit_of_the_doubt() -> None:
    async with client(httpx.MockTransport(lambda request: httpx.Response(404))) as http:
        status = await probe_model(http, "any")

    assert status.ok
    assert status.listed is None


async def test_a_base_url_without_its_api_version_names_the_setting_and_v1() -> None:
    async with FakeLLMServer() as fake:
        without_v1 = fake.base_url.rstrip("/").removesuffix("/v1")
        async with httpx.AsyncClient(base_url=without_v1) as http:
            status = await probe_model(http, fake.model)

    assert status.reachable
    assert status.problem is not None
    assert "check LLM_BASE_URL, which ends in /v1" in status.problem


async def test_an_unreachable_endpoint_is_reported_as_such() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    async with client(httpx.MockTransport(refuse)) as http:
        status = await probe_model(http, "any")

    assert not status.reachable
    assert status.problem == "is unreachable (ConnectError): check LLM_BASE_URL"


async def test_a_refused_connection_is_named_with_what_to_check() -> None:
    async with FakeLLMServer() as gone:
        url = gone.base_url
    async with httpx.AsyncClient(base_url=url) as http:
        status = await probe_model(http, "any")

    assert not status.reachable
    assert status.problem is not None
    assert "refused the connection" in status.problem
    assert "localhost is the container itself" in status.problem


async def test_a_host_name_that_does_not_resolve_is_named() -> None:
    async with httpx.AsyncClient(base_url="http://model.invalid/v1/") as http:
        status = await probe_model(http, "any")

    assert status.problem == "is unreachable: its host name does not resolve (check LLM_BASE_URL)"


def test_the_endpoint_is_shown_without_credentials() -> None:
    shown = describe_endpoint("https://user:s3cret@llm.example.com/v1?key=abc")

    assert shown == "https://llm.example.com/v1"
