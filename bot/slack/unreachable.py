"""Saying, in one short line, why Slack could not be reached.

A Slack API that hangs or refuses connections makes the SDK raise aiohttp's and asyncio's
own errors, not :class:`slack_sdk.errors.SlackApiError`; logged as tracebacks they are long
and name the wrong thing (a refused connection retried until a timeout ends as
``TimeoutError``). :func:`slack_unreachable` names the cause (no answer in time, a refused
connection, a dropped one) and what to check, with the host and port only: never a
token, a URL's query or anything sent.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import aiohttp

__all__ = ["SLACK_TRANSPORT_ERRORS", "endpoint", "slack_unreachable"]

SLACK_TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    aiohttp.ClientConnectionError,
    TimeoutError,
    ConnectionError,
)
"""What a Slack call raises when Slack does not answer: no status, no ``ok: false``."""

CHECK = "check SLACK_API_URL, the network and https://slack-status.com"


def endpoint(url: str) -> str:
    """``host:port`` of ``url``: what a log line may name of an address."""
    parts = urlsplit(url)
    default = 443 if parts.scheme in ("https", "wss") else 80
    return f"{parts.hostname}:{parts.port or default}"


def slack_unreachable(error: BaseException, *, timeout: float | None = None) -> str | None:
    """Why a Slack call failed without an answer, and what to check; None for any other
    error. ``timeout`` is the client's, named when the call ran out of it."""
    if isinstance(error, aiohttp.ClientConnectorError):
        where = f"{error.host}:{error.port}"
        if isinstance(error.os_error, ConnectionRefusedError):
            return f"Slack's Web API at {where} refused the connection: {CHECK}"
        reason = error.os_error.strerror or type(error.os_error).__name__
        return f"Slack's Web API at {where} could not be reached ({reason}): {CHECK}"
    if isinstance(error, TimeoutError):
        within = f" within {timeout:g} s" if timeout is not None else ""
        return f"Slack's Web API did not answer{within} (timeout): {CHECK}"
    if isinstance(error, SLACK_TRANSPORT_ERRORS):
        return f"the connection to Slack's Web API failed ({type(error).__name__}): {CHECK}"
    return None
