"""Opening the Socket Mode connection within a bounded number of tries.

The SDK's own ``connect()`` retries forever, logging a traceback each time, even when Slack
refuses the app token or the socket's endpoint refuses connections (ending, after its
retries, as a ``TimeoutError``); here a refused token is one line at once, the endpoint is
tried with a plain TCP connection before the SDK is handed its URL, and anything else gives
up after :data:`SOCKET_TRIES` tries, in one line naming the cause.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

import aiohttp
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_sdk.errors import SlackApiError

from bot.config import ConfigurationError
from bot.slack.unreachable import not_connected, unreachable_cause

__all__ = ["SOCKET_TRIES", "connect_socket_mode"]

SOCKET_TRIES = 4
TRY_TIMEOUT_SECONDS = 10.0
REFUSED_TOKEN_ERRORS = frozenset(
    {"invalid_auth", "not_authed", "not_allowed_token_type", "account_inactive", "token_revoked"}
)


async def connect_socket_mode(
    handler: AsyncSocketModeHandler,
    *,
    tries: int = SOCKET_TRIES,
    try_timeout: float = TRY_TIMEOUT_SECONDS,
    backoff: float = 1.0,
) -> None:
    """Connect ``handler``, or raise :class:`ConfigurationError` with one line saying why."""
    client = handler.client
    problem = "no answer"
    for attempt in range(1, tries + 1):
        try:
            async with asyncio.timeout(try_timeout):
                # Asking for the URL ourselves surfaces a refused token as an error at once
                # (the SDK would log it and retry); connect() then uses that URL.
                opened = await client.web_client.apps_connections_open(app_token=client.app_token)
                url = str(opened["url"])
                refused = await _refusal(url)
                if refused is None:
                    client.wss_uri = url
                    await handler.connect_async()
                    return
                problem = refused
        except SlackApiError as error:
            code = str(error.response.get("error"))
            if code in REFUSED_TOKEN_ERRORS:
                raise ConfigurationError(
                    f"Slack refused SLACK_APP_TOKEN ({code}): generate an app-level token with "
                    "the connections:write scope (README, Creating the Slack app)"
                ) from None
            problem = code
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            problem = (
                unreachable_cause(error, timeout=client.web_client.timeout) or type(error).__name__
            )
        client.wss_uri = None
        if attempt < tries:
            await asyncio.sleep(backoff * 2 ** (attempt - 1))
    raise ConfigurationError(
        f"could not open a Socket Mode connection to Slack after {tries} tries ({problem}): "
        "check SLACK_APP_TOKEN, SLACK_API_URL and the network"
    )


async def _refusal(url: str) -> str | None:
    """Why the Socket Mode endpoint at ``url`` takes no connection, or None when it takes
    one (a bare TCP connection, closed at once: the URL itself is left for the SDK)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "wss" else 80)
    where = f"the Socket Mode endpoint {host}:{port}"
    try:
        async with asyncio.timeout(TRY_TIMEOUT_SECONDS):
            _, writer = await asyncio.open_connection(host, port)
    except TimeoutError:
        return f"{where} did not answer (timeout)"
    except OSError as error:
        return not_connected(where, error)
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return None
