"""Configuration from environment variables and an optional ``.env`` file."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Annotated

from pydantic import AnyHttpUrl, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from memory import MemoryConfig, RecallWeights

__all__ = ["Settings"]


def _emoji_set(value: object) -> object:
    if isinstance(value, str):
        return frozenset(name.strip().strip(":") for name in value.split(",") if name.strip())
    return value


EmojiNames = Annotated[frozenset[str], NoDecode]
"""A comma-separated list in the environment (``+1,:thumbsup:``), not JSON."""


class Settings(BaseSettings):
    """Every setting is documented, with its default, in ``.env.example``."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    slack_bot_token: SecretStr
    slack_signing_secret: SecretStr
    slack_app_token: SecretStr | None = None
    slack_api_url: AnyHttpUrl = AnyHttpUrl("https://slack.com/api/")
    port: int = Field(default=3000, ge=1, le=65535)

    llm_base_url: AnyHttpUrl = AnyHttpUrl("http://localhost:11434/v1")
    llm_api_key: SecretStr = SecretStr("")
    llm_model: str = "llama3.1"
    llm_timeout_seconds: float = Field(default=60.0, gt=0)
    llm_retry_budget_seconds: float = Field(default=20.0, ge=0)

    bot_db_path: Path = Path("./bot.db")
    ledger_ttl_days: int = Field(default=30, ge=1)
    positive_reactions: EmojiNames = frozenset({"+1", "thumbsup"})
    negative_reactions: EmojiNames = frozenset({"-1", "thumbsdown"})
    anyone_may_vote: bool = False
    share_channel_successes: bool = False
    recall_top_k: int = Field(default=5, ge=1, le=20)
    recall_token_budget: int = Field(default=1500, ge=100)
    recall_weight_relevance: float = Field(default=1.0, ge=0)
    recall_weight_recency: float = Field(default=1.0, ge=0)
    recall_weight_importance: float = Field(default=1.0, ge=0)
    recall_half_life_days: float = Field(default=14.0, gt=0)
    consolidation_interval_hours: float = Field(default=24.0, gt=0)
    log_level: str = "INFO"

    _split_emoji = field_validator("positive_reactions", "negative_reactions", mode="before")(
        _emoji_set
    )

    @property
    def socket_mode(self) -> bool:
        return self.slack_app_token is not None and bool(self.slack_app_token.get_secret_value())

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
        )
