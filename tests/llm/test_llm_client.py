"""build_llm_client and the package's public surface."""

from __future__ import annotations

import httpx

import bot.llm
from bot.llm import build_llm_client


async def test_the_client_is_rooted_at_the_base_url_and_sends_the_key() -> None:
    async with build_llm_client("http://localhost:11434/v1", "sk-abc", timeout=7.0) as client:
        request = client.build_request("POST", "chat/completions")

        assert str(request.url) == "http://localhost:11434/v1/chat/completions"
        assert request.headers["Authorization"] == "Bearer sk-abc"
        assert client.timeout == httpx.Timeout(7.0)
        assert "sk-abc" not in repr(client.headers)


async def test_an_empty_key_sends_no_authorization_header() -> None:
    async with build_llm_client("http://localhost:11434/v1", "", timeout=7.0) as client:
        assert "Authorization" not in client.build_request("GET", "models").headers


def test_exported_members_are_sorted_and_importable() -> None:
    assert bot.llm.__all__ == sorted(bot.llm.__all__)
    assert all(hasattr(bot.llm, name) for name in bot.llm.__all__)
