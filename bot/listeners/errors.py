"""Bolt's global error handler: one log line without the payload, never a 5xx.

Bolt's own handler logs the exception with its message (which may quote the payload) and
a traceback, and answers 500. Here an error is logged as its traceback on one line without
its message (:func:`bot.logging_setup.exception_trace`), and the request gets a 400; one
Bolt found no listener for keeps Bolt's 404. Slack out of reach (a timeout, a refused
connection) is one short line naming that cause instead. Slack hears back only once the
listener returns (``process_before_response``, :mod:`bot.app`), so an event whose listener
failed is not acknowledged either: Slack sends it again.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.error import BoltUnhandledRequestError
from slack_bolt.response import BoltResponse

from bot.logging_setup import exception_trace
from bot.request_gate import payload_kind
from bot.slack.unreachable import slack_unreachable

__all__ = ["listener_failed"]

log = logging.getLogger(__name__)


async def listener_failed(error: Exception, body: dict[str, Any]) -> BoltResponse | None:
    """Registered with ``app.error``: Bolt calls it for listener and middleware errors."""
    kind = payload_kind(body)
    if isinstance(error, BoltUnhandledRequestError):
        log.info("no listener for a %s payload", kind)
        return None
    cause = slack_unreachable(error) or exception_trace(error)
    log.error("a %s payload could not be handled: %s", kind, cause)
    return BoltResponse(status=400, body="")
