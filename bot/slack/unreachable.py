"""Saying, in one short line, why Slack could not be reached.

A Slack API that hangs or refuses connections makes the SDK raise aiohttp's and asyncio's
own errors, not :class:`slack_sdk.errors.SlackApiError`; logged as tracebacks they are long
and name the wrong thing (a refused connection retried until a timeout ends as
``TimeoutError``). :func:`unreachable_cause` names the cause (no answer in time, a refused
connection, a dropped one) with the host and port only: never a token, a URL's query or
anything sent; :func:`slack_unreachable` adds what to check.
"""

from __future__ import annotations

import aiohttp

__all__ = [
    "CHECK",
    "SLACK_TRANSPORT_ERRORS",
    "not_connected",
    "slack_unreachable",
    "unreachable_cause",
]

SLACK_TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    aiohttp.ClientConnectionError,
    TimeoutError,
    ConnectionError,
)
"""What a Slack call raises when Slack does not answer: no status, no ``ok: false``."""

CHECK = "check SLACK_API_URL, the network and https://slack-status.com"


def unreachable_cause(error: BaseException, *, timeout: float | None = None) -> str | None:
    """Why a Slack call failed without an answer; None for any other error. ``timeout``
    is the client's, named when the call ran out of it."""
    if isinstance(error, aiohttp.ClientConnectorError):
        return not_connected(f"Slack's Web API at {error.host}:{error.port}", error.os_error)
    if isinstance(error, TimeoutError):
        within = f" within {timeout:g} s" if timeout is not None else ""
        return f"Slack's Web API did not answer{within} (timeout)"
    if isinstance(error, SLACK_TRANSPORT_ERRORS):
        return f"the connection to Slack's Web API failed ({type(error).__name__})"
    return None


def not_connected(where: str, error: OSError) -> str:
    """Why ``where`` took no connection: it refused it, or the operating system says why it
    could not be reached."""
    if isinstance(error, ConnectionRefusedError):
        return f"{where} refused the connection"
    return f"{where} could not be reached ({error.strerror or type(error).__name__})"


def slack_unreachable(error: BaseException, *, timeout: float | None = None) -> str | None:
    """:func:`unreachable_cause`, and what to check; None for any other error."""
    cause = unreachable_cause(error, timeout=timeout)
    return f"{cause}: {CHECK}" if cause is not None else None
