"""Tokens Slack revoked (the app uninstalled, a grant withdrawn): no Web API call goes out
with one again from this process, not even from an answer that was in flight.

Bolt gives each request a client with its workspace's token; :func:`guard_revoked_tokens`
swaps it for a :class:`RevocableWebClient`, which refuses, as Slack would
(``token_revoked``), every call made with a token in :class:`RevokedTokens`. Another
replica stops using the token at its next event: the installation is gone from the shared
database, so Bolt finds no token for the workspace.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

__all__ = ["RevocableWebClient", "RevokedTokens", "guard_revoked_tokens"]


class RevokedTokens:
    """The tokens this process knows Slack revoked."""

    def __init__(self) -> None:
        self._tokens: set[str] = set()

    def revoke(self, tokens: Iterable[str | None]) -> None:
        self._tokens.update(token for token in tokens if token)

    def __contains__(self, token: object) -> bool:
        return token in self._tokens


class RevocableWebClient(AsyncWebClient):
    """A Web API client that makes no call once its token is revoked."""

    def __init__(self, revoked: RevokedTokens, **options: Any) -> None:
        super().__init__(**options)
        self._revoked = revoked

    @classmethod
    def copy_of(cls, client: AsyncWebClient, revoked: RevokedTokens) -> RevocableWebClient:
        return cls(
            revoked,
            token=client.token,
            base_url=client.base_url,
            timeout=client.timeout,
            ssl=client.ssl,
            proxy=client.proxy,
            session=client.session,
            trust_env_in_session=client.trust_env_in_session,
            headers=client.headers,
            team_id=client.default_params.get("team_id"),
            logger=client.logger,
            retry_handlers=client.retry_handlers,
        )

    async def api_call(self, api_method: str, **kwargs: Any) -> AsyncSlackResponse:  # type: ignore[override]
        token = (kwargs.get("params") or {}).get("token") or self.token
        if token in self._revoked:
            refused = AsyncSlackResponse(
                client=self,
                http_verb="POST",
                api_url=f"{self.base_url}{api_method}",
                req_args={},
                data={"ok": False, "error": "token_revoked"},
                headers={},
                status_code=200,
            )
            raise SlackApiError("the token was revoked; the call was not made", refused)
        return await super().api_call(api_method, **kwargs)


def guard_revoked_tokens(
    revoked: RevokedTokens,
) -> Callable[[AsyncBoltContext, Callable[[], Awaitable[Any]]], Awaitable[Any]]:
    """Bolt middleware: the request's client refuses revoked tokens from now on."""

    async def guard(context: AsyncBoltContext, next: Callable[[], Awaitable[Any]]) -> Any:
        client = context.get("client")
        if isinstance(client, AsyncWebClient):
            context["client"] = RevocableWebClient.copy_of(client, revoked)
        return await next()

    return guard
