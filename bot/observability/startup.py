"""The start-up line naming the model and its endpoint, and a warning when it will not answer."""

from __future__ import annotations

import logging
from collections.abc import Awaitable

from bot.config import AdminSettings
from bot.llm import ModelStatus, describe_endpoint

__all__ = ["announce_model"]

log = logging.getLogger("bot.startup")


async def announce_model(settings: AdminSettings, probe: Awaitable[ModelStatus]) -> ModelStatus:
    """Log which model at which endpoint the bot will use, and warn (without failing: the
    model may come up later) when ``probe`` finds the endpoint unreachable, refusing the key,
    or not listing the model, as Ollama before ``ollama pull``."""
    endpoint = describe_endpoint(str(settings.llm_base_url))
    log.info("answering with the model %s at %s", settings.llm_model, endpoint)
    status = await probe
    if status.problem is not None:
        log.warning(
            "the model endpoint %s %s; the bot starts anyway, and answers fail until then",
            endpoint,
            status.problem,
        )
    return status
