"""The authenticated HTTP client an :class:`OpenAICompatibleProvider` is given."""

from __future__ import annotations

import httpx

__all__ = ["build_llm_client"]


def build_llm_client(base_url: str, api_key: str, timeout: float) -> httpx.AsyncClient:
    """A client for an OpenAI-compatible API rooted at ``base_url`` (e.g. ``.../v1``).

    ``api_key`` goes into the ``Authorization`` header only when non-empty (local servers such
    as Ollama need none). httpx masks that header in reprs and never logs headers."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    return httpx.AsyncClient(base_url=base_url, headers=headers, timeout=httpx.Timeout(timeout))
