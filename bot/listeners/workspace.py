"""Which workspace's bot answers an event: the one workspace of single-token mode, or, in
OAuth mode, the one Bolt authorized the event for (its token is on the request's client)."""

from __future__ import annotations

from typing import Any

from slack_bolt.authorization.async_authorize import AsyncAuthorize
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from bot.answering import AnswerService, BotIdentity, IncomingMessage
from bot.listeners.services import Services
from bot.oauth.revocations import RevocableWebClient
from bot.slack.directory import WebApiDirectory

__all__ = [
    "answering_for_kept",
    "answering_in",
    "identity_in",
    "listed_workspace",
    "payload_team",
    "scope_org",
]


def identity_in(services: Services, context: AsyncBoltContext) -> BotIdentity:
    """Who the bot is where the event happened."""
    if services.identity is not None:
        return services.identity
    return BotIdentity(
        user_id=context.bot_user_id or "",
        bot_id=context.bot_id,
        team_id=context.team_id or context.enterprise_id or "",
        enterprise_id=context.enterprise_id or "",
    )


def answering_in(services: Services, context: AsyncBoltContext) -> AnswerService:
    """The answering service of the event's workspace, with that workspace's client."""
    if services.identity is not None:
        return services.answering
    client = context.client
    return services.answering.for_workspace(
        client, identity_in(services, context), WebApiDirectory(client)
    )


async def answering_for_kept(
    services: Services,
    authorize: AsyncAuthorize | None,
    client: AsyncWebClient,
    message: IncomingMessage,
) -> AnswerService:
    """The answering service of a kept question's workspace, outside any request: the one
    workspace's, or (OAuth mode, ``authorize`` being Bolt's) the workspace's bot, with a
    copy of ``client`` holding its token as Bolt finds it (refreshed when it rotates)."""
    if services.identity is not None or authorize is None:
        return services.answering
    found = await authorize(
        context=AsyncBoltContext(client=client),
        enterprise_id=message.enterprise_id or None,
        team_id=message.team_id or None,
        user_id=None,
    )
    if found is None or not found.bot_token:
        raise LookupError("the workspace of a kept question has no installation")
    client = RevocableWebClient.copy_of(client, services.revoked)
    client.token = found.bot_token
    identity = BotIdentity(
        user_id=found.bot_user_id or "",
        bot_id=found.bot_id,
        team_id=message.team_id or message.enterprise_id,
        enterprise_id=message.enterprise_id,
    )
    return services.answering.for_workspace(client, identity, WebApiDirectory(client))


def listed_workspace(services: Services, team_id: str | None) -> str | None:
    """Whose memories a person's lists (the Home tab) show: in OAuth mode only those of
    the workspace they look from (Slack user ids are shared across an Enterprise Grid
    org, the memories are not); in single-token mode, all of theirs."""
    return team_id if services.identity is None else None


def payload_team(body: dict[str, Any]) -> str | None:
    """The workspace an interactive payload (a button click) came from."""
    team = (body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id")
    return team if isinstance(team, str) else None


def scope_org(services: Services, body: dict[str, Any]) -> str:
    """The Enterprise Grid org of the scopes a payload (an event, a command, a click) reads:
    its org in OAuth mode; empty in single-token mode, whose scopes (and keys) stay those
    of one workspace, as they were before orgs were in them, on Grid too."""
    return _enterprise_of(body) if services.identity is None else ""


def _enterprise_of(body: dict[str, Any]) -> str:
    """The Enterprise Grid org a payload comes from; empty outside one."""
    authorizations = body.get("authorizations") or [{}]
    candidates = (
        body.get("enterprise_id"),
        (body.get("enterprise") or {}).get("id")
        if isinstance(body.get("enterprise"), dict)
        else None,
        (body.get("team") or {}).get("enterprise_id")
        if isinstance(body.get("team"), dict)
        else None,
        authorizations[0].get("enterprise_id") if isinstance(authorizations[0], dict) else None,
    )
    return next((found for found in candidates if isinstance(found, str) and found), "")
