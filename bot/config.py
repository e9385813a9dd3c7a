"""Configuration from environment variables and an optional ``.env`` file, validated at start.

Two levels: :class:`AdminSettings` (the database, memory, model and logging: all the admin
commands read) and :class:`Settings` (that plus Slack: what serving the bot needs).
:func:`load_settings` turns every problem into a :class:`ConfigurationError` of one line
that names the setting.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import urlsplit

from pydantic import (
    AnyHttpUrl,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from memory import Fusion, HybridRecall, MemoryConfig, RecallWeights

__all__ = [
    "EXAMPLE_VALUES",
    "AdminSettings",
    "ConfigurationError",
    "Settings",
    "describe_validation_error",
    "load_settings",
    "manifest_bot_scopes",
]

EXAMPLE_VALUES = {
    "slack_bot_token": "xoxb-your-bot-token",
    "slack_signing_secret": "your-signing-secret",
}
"""The placeholders ``.env.example`` ships with: a first run that still has them is told so."""

LogLevel = Literal["CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG"]
SettingsT = TypeVar("SettingsT", bound="AdminSettings")


class ConfigurationError(Exception):
    """A setting is missing or invalid; the message is one line naming it and the fix."""


def _emoji_set(value: object) -> object:
    if isinstance(value, str):
        names = frozenset(name.strip().strip(":") for name in value.split(",") if name.strip())
        if not names:
            raise PydanticCustomError("empty", "is empty")
        return names
    return value


def _not_empty(value: object) -> object:
    """Reject an empty value (``NAME=`` in ``.env``) instead of letting it mean something."""
    raw = value.get_secret_value() if isinstance(value, SecretStr) else value
    if isinstance(raw, str) and not raw.strip():
        raise PydanticCustomError("empty", "is empty")
    return value


def _unset_when_empty(value: object) -> object:
    """``NAME=`` in ``.env`` leaves an optional number unset."""
    if isinstance(value, str) and not value.strip():
        return None
    return value


EmojiNames = Annotated[frozenset[str], NoDecode]
"""A comma-separated list in the environment (``+1,:thumbsup:``), not JSON."""
ScopeNames = Annotated[tuple[str, ...], NoDecode]
"""A comma-separated list in the environment (``chat:write,im:history``), as Bolt reads it."""

MANIFEST = Path(__file__).with_name("manifest.json")


def manifest_bot_scopes() -> tuple[str, ...]:
    """The bot scopes ``bot/manifest.json`` declares: what the OAuth flow asks for unless
    ``SLACK_SCOPES`` says otherwise (asking for none, Slack refuses the installation)."""
    manifest = json.loads(MANIFEST.read_text())
    return tuple(manifest["oauth_config"]["scopes"]["bot"])


class AdminSettings(BaseSettings):
    """Everything but Slack: what ``python -m bot forget|memory|export|stats|consolidate``
    read. Every setting is documented, with its default, in ``.env.example``."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    llm_base_url: AnyHttpUrl = AnyHttpUrl("http://localhost:11434/v1")
    llm_api_key: SecretStr = SecretStr("")
    llm_model: str = "llama3.1"
    llm_timeout_seconds: float = Field(default=60.0, gt=0)
    llm_retry_budget_seconds: float = Field(default=20.0, ge=0)
    max_concurrent_llm_calls: int = Field(default=8, ge=1, le=100)
    llm_temperature: float | None = Field(default=None, ge=0, le=2)
    """The sampling temperature of answers (the requests that set none of their own);
    None: the server's default."""
    llm_seed: int | None = None
    """Sent as ``seed`` with every model request, for servers that sample reproducibly."""
    llm_max_tokens: int | None = Field(default=None, ge=16)
    """The most tokens an answer may take; None: the server's own limit."""
    llm_vision: bool = False
    """The model reads images: attached PNG, JPEG, GIF and WebP files are sent to it."""
    llm_max_images: int = Field(default=4, ge=1, le=20)
    llm_max_image_bytes: int = Field(default=5_000_000, ge=1)
    image_download_timeout_seconds: float = Field(default=10.0, gt=0)

    bot_db_path: Path = Path("./bot.db")
    bot_db_url: SecretStr | None = None
    """``postgresql://...``: the shared database of several replicas, instead of the file
    at ``bot_db_path``. Secret: it may hold a password."""
    ledger_ttl_days: int = Field(default=30, ge=1)
    positive_reactions: EmojiNames = frozenset({"+1", "thumbsup"})
    negative_reactions: EmojiNames = frozenset({"-1", "thumbsdown"})
    anyone_may_vote: bool = False
    share_channel_successes: bool = False
    ask_for_reasons: bool = True
    """After a person's 👎 on their answer, ask them privately (once an answer) why."""
    reason_reply_minutes: float = Field(default=10.0, ge=0)
    """A reply in the thread of an answer its asker 👎'd this recently is the reason (0: never)."""
    recall_top_k: int = Field(default=5, ge=1, le=20)
    recall_token_budget: int = Field(default=1500, ge=100)
    recall_semantic_share: float = Field(default=0.3, ge=0, le=1)
    recall_fusion: Fusion = Fusion.SCORE
    recall_weight_relevance: float = Field(default=1.0, ge=0)
    recall_weight_recency: float = Field(default=0.0, ge=0)
    recall_weight_importance: float = Field(default=0.0, ge=0)
    recall_half_life_days: float = Field(default=14.0, gt=0)
    consolidation_interval_hours: float = Field(default=24.0, gt=0)
    log_level: LogLevel = "INFO"
    log_format: Literal["text", "json"] = "text"

    _split_emoji = field_validator("positive_reactions", "negative_reactions", mode="before")(
        _emoji_set
    )
    _required_values = field_validator("llm_model", "bot_db_path", mode="before")(_not_empty)
    _optional_numbers = field_validator(
        "llm_temperature", "llm_seed", "llm_max_tokens", mode="before"
    )(_unset_when_empty)

    @field_validator("bot_db_url", mode="before")
    @classmethod
    def _database_url(cls, value: object) -> object:
        """Empty means unset (SQLite at ``BOT_DB_PATH``); anything else must be PostgreSQL."""
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return None
        if not isinstance(raw, str) or not raw.startswith(("postgresql://", "postgres://")):
            # The value is not quoted back: it may hold a password.
            raise PydanticCustomError("url", "must start with postgresql://")
        return raw

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _case_insensitive(cls, value: object, info: ValidationInfo) -> object:
        if not isinstance(value, str):
            return value
        return value.strip().upper() if info.field_name == "log_level" else value.strip().lower()

    def secret_values(self) -> list[str]:
        """Values the log must never show: the model server's key, the database URL and its
        password (and, when serving, the Slack tokens and signing secret)."""
        values = [self.llm_api_key.get_secret_value()]
        if self.bot_db_url is not None:
            url = self.bot_db_url.get_secret_value()
            values += [url, urlsplit(url).password or ""]
        return [value for value in values if value]

    def store_url(self) -> str:
        """Where the memory store is: ``BOT_DB_URL`` when set, else the file ``BOT_DB_PATH``."""
        if self.bot_db_url is not None:
            return self.bot_db_url.get_secret_value()
        return str(self.bot_db_path)

    def memory_config(self) -> MemoryConfig:
        return MemoryConfig(
            ledger_ttl=timedelta(days=self.ledger_ttl_days),
            positive_reactions=self.positive_reactions,
            negative_reactions=self.negative_reactions,
            anyone_may_vote=self.anyone_may_vote,
            share_channel_successes=self.share_channel_successes,
            weights=RecallWeights(
                relevance=self.recall_weight_relevance,
                recency=self.recall_weight_recency,
                importance=self.recall_weight_importance,
                recency_half_life=timedelta(days=self.recall_half_life_days),
            ),
            hybrid=HybridRecall(semantic=self.recall_semantic_share, fusion=self.recall_fusion),
        )


_OAUTH_CREDENTIALS = ("slack_client_id", "slack_client_secret")
_TOKEN_KINDS = {
    "xoxb-": "a bot token",
    "xoxe.xoxb-": "a bot token",
    "xapp-": "an app-level token",
    "xoxp-": "a user token",
    "xoxe.xoxp-": "a user token",
}
_TOKEN_PREFIXES = {"slack_bot_token": ("xoxb-", "xoxe.xoxb-"), "slack_app_token": ("xapp-",)}
"""What each token setting starts with (``xoxe.xoxb-``: a bot token with rotation on)."""


class Settings(AdminSettings):
    """What serving the bot needs: :class:`AdminSettings` plus the Slack app's.

    With ``SLACK_CLIENT_ID`` and ``SLACK_CLIENT_SECRET`` the bot is distributed (OAuth
    mode): each workspace installs it through ``/slack/install`` and is answered with its
    own token, and ``SLACK_BOT_TOKEN`` is not needed."""

    slack_bot_token: SecretStr | None
    slack_signing_secret: SecretStr
    slack_client_id: str | None = None
    slack_client_secret: SecretStr | None = None
    slack_scopes: ScopeNames = ()
    """The bot scopes the OAuth flow asks for; empty: the manifest's."""
    slack_app_token: SecretStr | None = None
    slack_api_url: AnyHttpUrl = AnyHttpUrl("https://slack.com/api/")
    port: int = Field(default=3000, ge=1, le=65535)
    slack_timeout_seconds: int = Field(default=10, ge=1, le=300)
    max_concurrent_answers: int = Field(default=16, ge=1)
    answer_queue_limit: int = Field(default=1000, ge=0)
    answer_wait_seconds: float = Field(default=600.0, gt=0)
    store_retry_seconds: float = Field(default=60.0, ge=0)
    question_lease_seconds: float = Field(default=30.0, gt=0)
    question_max_attempts: int = Field(default=3, ge=1)
    question_answer_within_minutes: float = Field(default=10.0, gt=0)

    _required_secrets = field_validator("slack_bot_token", "slack_signing_secret", mode="before")(
        _not_empty
    )

    @field_validator("slack_bot_token", "slack_app_token")
    @classmethod
    def _token_kind(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        """A token pasted into the other setting (or a user token) is named as such at start,
        not by Slack's ``not_allowed_token_type``; only its kind is told, never the token."""
        token = value.get_secret_value() if value is not None else ""
        expected = _TOKEN_PREFIXES[str(info.field_name)]
        if not token or token.startswith(expected):
            return value
        kind = next((k for p, k in _TOKEN_KINDS.items() if token.startswith(p)), "no Slack token")
        raise PydanticCustomError(
            "token",
            "it holds {kind}; this setting takes one starting with {expected}",
            {"kind": kind, "expected": expected[0]},
        )

    @model_validator(mode="before")
    @classmethod
    def _no_bot_token_in_oauth_mode(cls, data: Any) -> Any:
        """In OAuth mode each workspace's token comes from its installation."""
        if not isinstance(data, dict):
            return data
        given = {key.lower(): value for key, value in data.items() if isinstance(key, str)}
        oauth = all(str(given.get(name) or "").strip() for name in _OAUTH_CREDENTIALS)
        if oauth and not str(given.get("slack_bot_token") or "").strip():
            return {**data, "slack_bot_token": None}
        return data

    @field_validator("slack_client_id", "slack_client_secret", mode="before")
    @classmethod
    def _unset_credential_when_empty(cls, value: object) -> object:
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        return None if isinstance(raw, str) and not raw.strip() else value

    @field_validator("slack_scopes", mode="before")
    @classmethod
    def _split_scopes(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(scope.strip() for scope in value.split(",") if scope.strip())
        return value

    @property
    def oauth_mode(self) -> bool:
        """Whether workspaces install the bot through Slack's OAuth flow."""
        return self.slack_client_id is not None and self.slack_client_secret is not None

    @property
    def bot_scopes(self) -> tuple[str, ...]:
        """The bot scopes an installation asks for: ``SLACK_SCOPES``, else the manifest's."""
        return self.slack_scopes or manifest_bot_scopes()

    @property
    def socket_mode(self) -> bool:
        return self.slack_app_token is not None and bool(self.slack_app_token.get_secret_value())

    def secret_values(self) -> list[str]:
        slack = [
            self.slack_bot_token,
            self.slack_signing_secret,
            self.slack_app_token,
            self.slack_client_secret,
        ]
        values = [secret.get_secret_value() for secret in slack if secret is not None]
        return super().secret_values() + [value for value in values if value]

    def example_values(self) -> list[str]:
        """The settings that still hold ``.env.example``'s placeholders."""
        return [
            name.upper()
            for name, example in EXAMPLE_VALUES.items()
            if (value := getattr(self, name)) is not None and value.get_secret_value() == example
        ]


def _describe(error: dict[str, object]) -> str:
    name = "_".join(str(part) for part in error.get("loc", ())).upper() or "a setting"
    kind = error.get("type")
    if kind == "missing":
        return f"{name} is not set: export it or add it to .env (see .env.example)"
    if kind == "empty":
        return f"{name} is empty: give it a value in the environment or .env (see .env.example)"
    return f"{name} is invalid ({error.get('msg')}): fix it in the environment or .env"


def describe_validation_error(error: ValidationError) -> str:
    """Every problem of the settings, each naming its setting, on one line."""
    return "; ".join(_describe(dict(item)) for item in error.errors())


def _python() -> str:
    """This interpreter as one would type it here: ``.venv/bin/python`` after the README's
    first command (a bare ``python`` is not on every system's path)."""
    try:
        return str(Path(sys.executable).relative_to(Path.cwd()))
    except ValueError:
        return "python"


def load_settings(kind: type[SettingsT]) -> SettingsT:
    """``kind`` from the environment and ``.env``, or a :class:`ConfigurationError`."""
    try:
        settings = kind()
    except ValidationError as error:
        raise ConfigurationError(describe_validation_error(error)) from None
    if isinstance(settings, Settings) and (placeholders := settings.example_values()):
        raise ConfigurationError(
            f"{' and '.join(placeholders)} still hold the example values of .env.example: "
            "put your Slack app's values in .env, and SLACK_APP_TOKEN for Socket Mode (README, "
            f"Creating the Slack app), or try it with no workspace: {_python()} -m bot playground"
        )
    return settings
