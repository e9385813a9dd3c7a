"""``app_uninstalled`` and ``tokens_revoked`` (OAuth mode): a workspace that removes the
app, or revokes its bot token, is erased (everything the bot keeps of it, fenced as
``/forget`` fences a person); a person who revokes their own grant loses only their
installation. Either way this process makes no Web API call with those tokens again
(:mod:`bot.oauth.revocations`). Each is one ``forget_workspace`` or ``tokens_revoked``
event line."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from pydantic import BaseModel, Field

from bot.listeners.payloads import read_payload
from bot.listeners.services import Services
from memory import Installations

__all__ = ["app_uninstalled_callback", "tokens_revoked_callback"]


class _Tokens(BaseModel):
    oauth: list[str] = Field(default_factory=list)
    """The people whose grants were revoked."""
    bot: list[str] = Field(default_factory=list)
    """The bot users whose tokens were revoked."""


class _Event(BaseModel):
    tokens: _Tokens = Field(default_factory=_Tokens)


class _Authorization(BaseModel):
    is_enterprise_install: bool = False


class _Callback(BaseModel):
    """The ids these listeners use (anything else is ignored)."""

    team_id: str = Field(min_length=1)
    enterprise_id: str | None = None
    event: _Event
    authorizations: list[_Authorization] = Field(default_factory=list)

    @property
    def org_wide(self) -> bool:
        """An installation for a whole Enterprise Grid org (kept under the org)."""
        return any(item.is_enterprise_install for item in self.authorizations)


async def _tokens_of(
    store: Installations, enterprise_id: str, team_id: str, users: list[str | None]
) -> list[str | None]:
    """The tokens the installations of these users (``""``: the bot) hold."""
    tokens: list[str | None] = []
    for user in users:
        found = await store.find_installation(
            enterprise_id=enterprise_id, team_id=team_id, user_id=user
        )
        if found is not None:
            tokens += [found.data.get("bot_token"), found.data.get("user_token")]
    return tokens


async def _erase_workspace(services: Services, callback: _Callback) -> None:
    enterprise_id = callback.enterprise_id or ""
    team_id = "" if callback.org_wide else callback.team_id
    tokens = await _tokens_of(services.memory, enterprise_id, team_id, ["", None])
    services.revoked.revoke(tokens)
    if callback.org_wide:
        await services.memory.delete_installations(enterprise_id=enterprise_id, team_id="")
    await services.forgetting.forget_workspace(callback.team_id)


def _in_background(
    services: Services, kind: str, work: Callable[[_Callback], Awaitable[None]]
) -> Callable[[dict[str, Any]], Awaitable[None]]:
    """A listener that starts ``work`` on the callback, or logs a malformed one as ignored."""

    async def listener(body: dict[str, Any]) -> None:
        callback = read_payload(_Callback, body, services.observer, kind)
        if callback is None:
            return
        services.inflight.start(work(callback))

    return listener


def app_uninstalled_callback(services: Services) -> Callable[[dict[str, Any]], Awaitable[None]]:
    return _in_background(services, "forget_workspace", partial(_erase_workspace, services))


def tokens_revoked_callback(services: Services) -> Callable[[dict[str, Any]], Awaitable[None]]:
    async def revoke(callback: _Callback) -> None:
        if callback.event.tokens.bot:
            await _erase_workspace(services, callback)
            return
        enterprise_id = callback.enterprise_id or ""
        async with services.observer.event("tokens_revoked", team=callback.team_id):
            users: list[str | None] = list(callback.event.tokens.oauth)
            services.revoked.revoke(
                await _tokens_of(services.memory, enterprise_id, callback.team_id, users)
            )
            for user in callback.event.tokens.oauth:
                await services.memory.delete_installations(
                    enterprise_id=enterprise_id, team_id=callback.team_id, user_id=user
                )

    return _in_background(services, "tokens_revoked", revoke)
