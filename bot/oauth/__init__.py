"""Distributing the app: Bolt's OAuth flow over the bot's own database, and erasing a
workspace that uninstalls it."""

from bot.oauth.settings import build_oauth_settings
from bot.oauth.stores import StoreHandle, StoreInstallationStore, StoreOAuthStateStore

__all__ = [
    "StoreHandle",
    "StoreInstallationStore",
    "StoreOAuthStateStore",
    "build_oauth_settings",
]
