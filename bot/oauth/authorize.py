"""Finding a workspace's bot for a request (OAuth mode) without asking Slack first.

Bolt runs the authorization before the listener, so (the app running with
``process_before_response``) before Slack hears back. Bolt's own
``AsyncInstallationStoreAuthorize`` calls ``auth.test`` on every request to learn the
bot's ids, which the installation already holds: a slow Slack held every acknowledgement,
and an ``auth.test`` refused for a passing reason (rate limited, a 5xx) answered a vote with
a 200 without storing it. Here the ids come from the installation, read within
:data:`AUTHORIZE_WITHIN_SECONDS`; a token that needs refreshing is refreshed in a task the
request waits for only as long, using the current token (good for some two hours yet)
meanwhile, or when the refresh fails.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.oauth.installation_store import Installation

__all__ = ["AUTHORIZE_WITHIN_SECONDS", "StoredInstallationAuthorize"]

log = logging.getLogger(__name__)

AUTHORIZE_WITHIN_SECONDS = 0.75
"""How long finding (and refreshing) a workspace's token may hold a request: with a
listener's own 2 s bound on storing what its 200 promises, inside the 3 s Slack waits."""


class StoredInstallationAuthorize(AsyncInstallationStoreAuthorize):
    """The workspace's bot as its installation recorded it: its token (refreshed when it
    expires within two hours), ids and scopes."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._refreshing: dict[
            tuple[str | None, str | None], asyncio.Task[Installation | None]
        ] = {}

    async def __call__(
        self,
        *,
        context: AsyncBoltContext,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None,
        **_: Any,
    ) -> AuthorizeResult | None:
        """The bot of the workspace; None when it has none (not installed); a
        ``TimeoutError`` when the store does not answer in time. A token that could not be
        refreshed is used as it is: the request is stored and acknowledged, not refused
        with a 200 as Bolt would (its own Web API calls fail if the token has expired)."""
        async with asyncio.timeout(AUTHORIZE_WITHIN_SECONDS) as within:
            found = await self.installation_store.async_find_installation(
                enterprise_id=enterprise_id,
                team_id=team_id,
                is_enterprise_install=context.is_enterprise_install,
            )
        if found is None or found.bot_token is None:
            return None
        refreshing = self._refresh(found)
        left = (within.when() or 0.0) - asyncio.get_running_loop().time()
        done, _ = await asyncio.wait({refreshing}, timeout=max(left, 0.0))
        failed = not done or refreshing.cancelled() or refreshing.exception() is not None
        refreshed = None if failed else refreshing.result()
        installation = refreshed or found
        return AuthorizeResult(
            enterprise_id=installation.enterprise_id,
            team_id=installation.team_id,
            bot_id=installation.bot_id,
            bot_user_id=installation.bot_user_id,
            bot_token=installation.bot_token,
            bot_scopes=installation.bot_scopes,
        )

    def _refresh(self, installation: Installation) -> asyncio.Task[Installation | None]:
        """The refresh of the workspace's token (nothing to do unless it expires soon): one
        at a time per workspace, left to finish when the request stops waiting for it."""
        workspace = (installation.enterprise_id, installation.team_id)
        running = self._refreshing.get(workspace)
        if running is not None:
            return running
        task = asyncio.ensure_future(self._rotate_and_save_tokens_if_necessary(installation))
        self._refreshing[workspace] = task

        def finished(done: asyncio.Task[Installation | None]) -> None:
            if self._refreshing.get(workspace) is done:
                del self._refreshing[workspace]
            if not done.cancelled() and (error := done.exception()) is not None:
                log.error("a workspace's token refresh failed (%s)", type(error).__name__)

        task.add_done_callback(finished)
        return task
