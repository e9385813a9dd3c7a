"""Bolt's OAuth settings for distributing the app, over the bot's own database.

Two defaults of Bolt's are wrong for this bot: its settings build the token refresher
(``AsyncTokenRotator``, inside the authorize step) with a Web API client of their own,
pointed at slack.com, so rotations would never reach ``SLACK_API_URL``; and without
``SLACK_SCOPES`` they ask Slack for no scope at all, which Slack refuses. Here the
refresher gets a client for ``SLACK_API_URL``, and the scopes default to the manifest's.
"""

from __future__ import annotations

import logging

from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.oauth.state_utils import OAuthStateUtils
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.oauth.authorize import StoredInstallationAuthorize
from bot.oauth.stores import StoreHandle, StoreInstallationStore, StoreOAuthStateStore

__all__ = ["build_oauth_settings"]

log = logging.getLogger(__name__)


def build_oauth_settings(
    settings: Settings, handle: StoreHandle, api_client: AsyncWebClient
) -> AsyncOAuthSettings:
    """The flow (``GET /slack/install``, ``GET /slack/oauth_redirect``) and the per-request
    authorization (:mod:`bot.oauth.authorize`), with installations and states kept in the
    store ``handle`` will hold. ``api_client`` is pointed at ``SLACK_API_URL``; token
    rotations go through it."""
    assert settings.slack_client_id is not None and settings.slack_client_secret is not None
    client_secret = settings.slack_client_secret.get_secret_value()
    installations = StoreInstallationStore(handle)
    oauth = AsyncOAuthSettings(
        client_id=settings.slack_client_id,
        client_secret=client_secret,
        scopes=list(settings.bot_scopes),
        user_scopes=[],
        installation_store=installations,
        state_store=StoreOAuthStateStore(
            handle, expiration_seconds=OAuthStateUtils.default_expiration_seconds
        ),
        logger=log,
    )
    oauth.authorize = StoredInstallationAuthorize(
        logger=log,
        client_id=settings.slack_client_id,
        client_secret=client_secret,
        token_rotation_expiration_minutes=oauth.token_rotation_expiration_minutes,
        installation_store=installations,
        user_token_resolution=oauth.user_token_resolution,
        client=api_client,
    )
    return oauth
