"""slack_sdk's installation and OAuth state stores, kept in the bot's own database.

Bolt's OAuth flow saves and finds installations through slack_sdk's
``AsyncInstallationStore`` and checks each browser's state through its
``AsyncOAuthStateStore``; these implement both over :class:`memory.Installations`, so
every replica sharing the database (SQLite or PostgreSQL) knows every workspace. A
workspace's bot is one record (user ``""``), each installer's grant another; the SDK's
objects are kept whole (:meth:`Installation.to_dict_for_copying`), as JSON.
"""

from __future__ import annotations

import logging
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore

from memory import InstallationRecord, Installations

__all__ = ["StoreHandle", "StoreInstallationStore", "StoreOAuthStateStore"]

log = logging.getLogger(__name__)

_BOT = ""
"""The user id of a workspace's bot record."""
_BOT_FIELDS = (
    "bot_token",
    "bot_id",
    "bot_user_id",
    "bot_scopes",
    "bot_refresh_token",
    "bot_token_expires_at",
)
"""What the bot's record holds of an installation: the current bot token and its kin."""


def _json(value: Any) -> Any:
    """A value of the SDK's dicts as JSON can hold it: a datetime as ISO-8601, which the
    SDK's models read back."""
    return value.isoformat() if isinstance(value, datetime) else value


def _ids(
    enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None
) -> tuple[str, str]:
    """The store's key of a workspace: an org-wide installation is the org's, any team."""
    return enterprise_id or "", "" if is_enterprise_install else (team_id or "")


def _record(ids: tuple[str, str], user_id: str, fields: dict[str, Any]) -> InstallationRecord:
    enterprise_id, team_id = ids
    return InstallationRecord(
        enterprise_id=enterprise_id,
        team_id=team_id,
        user_id=user_id,
        data={name: _json(value) for name, value in fields.items()},
        installed_at=datetime.now(UTC),
    )


class StoreHandle:
    """The memory store, attached once the bot has opened it: Bolt's app (and its OAuth
    settings) is built before."""

    def __init__(self) -> None:
        self.store: Installations | None = None

    def opened(self) -> Installations:
        if self.store is None:
            raise RuntimeError("the installation store is used before the bot started")
        return self.store


class StoreInstallationStore(AsyncInstallationStore):
    """Installations in the memory store."""

    def __init__(self, handle: StoreHandle) -> None:
        self._handle = handle

    @property
    def logger(self) -> logging.Logger:
        return log

    def _opened(self) -> Installations:
        return self._handle.opened()

    async def async_save(self, installation: Installation) -> None:
        ids = _ids(
            installation.enterprise_id, installation.team_id, installation.is_enterprise_install
        )
        fields = installation.to_dict_for_copying()
        await self._opened().save_installation(_record(ids, installation.user_id, fields))
        if installation.bot_token is not None:
            await self.async_save_bot(installation.to_bot())

    async def async_save_bot(self, bot: Bot) -> None:
        ids = _ids(bot.enterprise_id, bot.team_id, bot.is_enterprise_install)
        await self._opened().save_installation(_record(ids, _BOT, bot.to_dict_for_copying()))

    async def async_find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        enterprise, team = _ids(enterprise_id, team_id, is_enterprise_install)
        found = await self._opened().find_installation(
            enterprise_id=enterprise, team_id=team, user_id=_BOT
        )
        return None if found is None else Bot(**found.data)

    async def async_find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        """The installation (the latest installer's without ``user_id``), with the bot's
        current token: a rotation saves the bot, and an older installer's record keeps the
        token of its day."""
        enterprise, team = _ids(enterprise_id, team_id, is_enterprise_install)
        store = self._opened()
        found = await store.find_installation(
            enterprise_id=enterprise, team_id=team, user_id=user_id
        )
        if found is None:
            return None
        fields = dict(found.data)
        bot = await store.find_installation(enterprise_id=enterprise, team_id=team, user_id=_BOT)
        if bot is not None:
            fields |= {name: bot.data.get(name) for name in _BOT_FIELDS}
        return Installation(**fields)

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await self._opened().delete_installations(
            enterprise_id=enterprise_id or "", team_id=team_id or "", user_id=_BOT
        )

    async def async_delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        """That installer's grant; without ``user_id``, every installer's (not the bot)."""
        store = self._opened()
        if user_id is not None:
            await store.delete_installations(
                enterprise_id=enterprise_id or "", team_id=team_id or "", user_id=user_id
            )
            return
        while found := await store.find_installation(
            enterprise_id=enterprise_id or "", team_id=team_id or "", user_id=None
        ):
            await store.delete_installations(
                enterprise_id=found.enterprise_id, team_id=found.team_id, user_id=found.user_id
            )

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await self._opened().delete_installations(
            enterprise_id=enterprise_id or "", team_id=team_id or ""
        )


class StoreOAuthStateStore(AsyncOAuthStateStore):
    """The OAuth flow's one-time states, good for ``expiration_seconds``, in the store."""

    def __init__(self, handle: StoreHandle, *, expiration_seconds: int) -> None:
        self._handle = handle
        self._lifetime = timedelta(seconds=expiration_seconds)

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        state = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        await self._handle.opened().issue_oauth_state(
            state, expires_at=now + self._lifetime, now=now
        )
        return state

    async def async_consume(self, state: str) -> bool:
        return await self._handle.opened().consume_oauth_state(state, now=datetime.now(UTC))
