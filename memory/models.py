"""What the bot and a :class:`memory.MemoryStore` hand each other, and the store's errors."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ConversationKind(StrEnum):
    """Where an exchange happened. DMs and channels are separate privacy partitions."""

    DM = "dm"
    CHANNEL = "channel"


class Scope(BaseModel):
    """The conversation an exchange belongs to, a hard partition for recall; threads of a
    channel share the channel's scope. The workspace and, on Enterprise Grid, its org are
    part of it: an org-wide app meets one channel id, and one person, in several."""

    model_config = ConfigDict(frozen=True)

    team_id: str
    channel_id: str
    kind: ConversationKind
    enterprise_id: str = ""


class EpisodeStatus(StrEnum):
    PENDING = "pending"
    SUCCESS = "success"
    FAILURE = "failure"


class Vote(StrEnum):
    UP = "up"
    DOWN = "down"


class NewExchange(BaseModel):
    scope: Scope
    requester_id: str
    thread_ts: str | None
    question: str
    answer: str
    message_ts: list[str] = Field(min_length=1, description="ts of every message part sent")
    created_at: datetime


class ImportedEpisode(BaseModel):
    """An exchange already validated elsewhere (an importer, a benchmark), stored with its
    own times by :meth:`memory.MemoryStore.import_episodes`."""

    scope: Scope
    requester_id: str = Field(min_length=1)
    thread_ts: str | None = None
    question: str = Field(min_length=1)
    answer: str
    status: Literal[EpisodeStatus.SUCCESS, EpisodeStatus.FAILURE]
    lesson: str | None = None
    created_at: datetime
    validated_at: datetime

    @model_validator(mode="after")
    def _consistent(self) -> ImportedEpisode:
        if self.validated_at < self.created_at:
            raise ValueError("validated_at is before created_at")
        if self.lesson is not None and self.status is not EpisodeStatus.FAILURE:
            raise ValueError("only a failure has a lesson")
        return self


class Episode(BaseModel):
    id: int
    scope: Scope
    requester_id: str
    thread_ts: str | None
    question: str
    answer: str
    status: EpisodeStatus
    lesson: str | None = None
    importance: int | None = Field(default=None, ge=1, le=10)
    created_at: datetime
    validated_at: datetime | None = None
    reason: str | None = None
    """Why the asker 👎'd the answer, in their own words, if they said."""


class VoteEvent(BaseModel):
    """A reaction (``+1::skin-tone-3``), or a feedback ``button`` with its ``vote``, added
    to or removed from a message the bot sent."""

    channel_id: str
    message_ts: str
    voter_id: str
    reaction: str
    added: bool
    vote: Vote | None = None
    at: datetime


class VoteOutcome(BaseModel):
    """What a vote event did. ``applied`` is False for every no-op, with the reason."""

    applied: bool
    reason: str
    episode_id: int | None = None
    status: EpisodeStatus | None = None


class RecallRequest(BaseModel):
    scope: Scope
    requester_id: str
    text: str
    limit: int = Field(default=5, ge=1, le=50)
    token_budget: int = Field(default=1500, ge=1)
    now: datetime


class RecalledEpisode(BaseModel):
    episode: Episode
    score: float
    relevance: float
    recency: float
    importance: float


class WisdomNote(BaseModel):
    id: int
    scope: Scope
    user_id: str
    text: str
    episode_count: int
    created_at: datetime


class NewQuestion(BaseModel):
    """A question not answered yet; ``payload`` is the message as the bot reads it, opaque
    here: the asker and workspace beside it let ``/forget`` and an uninstall erase it."""

    team_id: str
    user_id: str
    received_at: datetime
    payload: str = Field(repr=False)


class PendingQuestion(NewQuestion):
    """A question kept until it is answered, leased to the process answering it."""

    id: int
    attempts: int
    """How many times a process took it to answer (its first receipt included)."""
    episode_id: int | None = None
    """The exchange an earlier attempt recorded as it showed its answer, if any."""
    shown: list[str] = Field(default_factory=list)
    """The ``ts`` of its parts Slack showed, for the next attempt to take back."""


class _ErasureReport(BaseModel):
    counts: dict[str, int]
    """Rows erased, by kind."""

    @property
    def total(self) -> int:
        return sum(self.counts.values())


class ForgetReport(_ErasureReport):
    user_id: str


class WorkspaceReport(_ErasureReport):
    team_id: str


class ExportedVote(BaseModel):
    episode_id: int
    reaction: str
    vote: Vote
    at: datetime


class UserExport(BaseModel):
    user_id: str
    episodes: list[Episode]
    wisdom: list[WisdomNote]
    ledger_entries: int
    votes: list[ExportedVote]


class StoreStats(BaseModel):
    episodes_by_status: dict[str, int]
    votes: int
    recalls: int
    tool_errors: dict[str, int]


class InstallationRecord(BaseModel):
    """An installation (a workspace's, or org-wide) as OAuth saved it: the bot's (``user_id``
    empty) or an installer's grant, its ``data`` (tokens, scopes, expiry) kept as is, unread."""

    enterprise_id: str = ""
    team_id: str = ""
    """Empty for an org-wide installation."""
    user_id: str = ""
    data: dict[str, Any]
    installed_at: datetime


class StoreError(Exception):
    """The store could not do what was asked (the backend failed, not the caller). ``bot/``
    catches these, never a backend's own errors (``sqlite3.Error``, psycopg's)."""


class StoreUnavailable(StoreError):
    """The store cannot be opened or used: a missing directory, a locked or corrupt file."""


class StoreClosed(StoreError):
    """The store was used after :meth:`memory.MemoryStore.close`."""
