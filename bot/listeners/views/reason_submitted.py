"""The form asking why a person 👎'd an answer, submitted: keep what they wrote as the
reason (:meth:`bot.assistant.reasons.Reasons.give`), then close the form.

The reason is stored before the acknowledgement closes the form, so a closed form means a
kept reason; when the store cannot take it in time, the form stays open with one sentence
saying so. Each submission is one ``reason`` event line.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck

from bot.listeners.deadline import STORE_WITHIN_SECONDS
from bot.listeners.services import Services
from bot.views.reason import REASON_BLOCK_ID, submitted_reason

__all__ = ["EMPTY_REASON", "REASON_NOT_SAVED", "reason_submitted_callback"]

log = logging.getLogger(__name__)

EMPTY_REASON = "Please say in a few words what went wrong."
REASON_NOT_SAVED = "I couldn't save that just now. Please try again in a minute."


def reason_submitted_callback(services: Services) -> Callable[..., Awaitable[None]]:
    async def on_submit(ack: AsyncAck, body: dict[str, Any]) -> None:
        user_id = (body.get("user") or {}).get("id")
        submitted = submitted_reason(body.get("view"))
        if not user_id or submitted is None:
            await ack(response_action="errors", errors={REASON_BLOCK_ID: EMPTY_REASON})
            services.observer.ignored("reason", "malformed", user=user_id)
            return
        episode_id, text = submitted
        async with services.observer.event("reason", user=user_id) as record:
            try:
                async with asyncio.timeout(STORE_WITHIN_SECONDS):
                    given = await services.reasons.give(
                        episode_id, user_id, text, at=datetime.now(UTC)
                    )
            except Exception as error:
                log.error("a reason could not be stored (%s)", type(error).__name__)
                await ack(response_action="errors", errors={REASON_BLOCK_ID: REASON_NOT_SAVED})
                record.outcome = "failed"
                return
            await ack()
            if given is None:
                record.outcome, record.reason = "ignored", "not_theirs_or_gone"

    return on_submit
