"""What each caller needs of the store, as small protocols sized to its use.

:class:`memory.MemoryStore` offers each of them (each verb is declared once, here, with the
caller that uses it; ``tests/memory/test_callers.py`` holds the store to them): a caller
depends on one, so it says exactly what it touches, and a test double implements only that.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Protocol

from memory import models
from memory.privacy import VALIDATED, Visibility


class Recall(Protocol):
    """The agent's turn: reading what the asker may see (see :mod:`memory.privacy`)."""

    @property
    def visibility(self) -> Visibility: ...

    async def recall(self, request: models.RecallRequest) -> list[models.RecalledEpisode]:
        """The requester's validated episodes in this scope most relevant to the text."""

    async def wisdom(self, scope: models.Scope, user_id: str) -> list[models.WisdomNote]: ...


class Counting(Protocol):
    async def count(self, counter: str, *, by: int = 1) -> None:
        """Increment an operational counter (``recalls``, ``tool_error:<class>:<tool>``)."""


class AgentMemory(Recall, Counting, Protocol):
    """Everything one turn of the agent may use of memory."""


class ExchangeLedger(Protocol):
    """Answering a message: exactly once, recorded part by part, fenced by erasures."""

    async def claim(self, *keys: str, at: datetime, team_id: str | None = None) -> bool:
        """Record that the message these keys name (an event id, ``channel:ts``) of
        workspace ``team_id`` is being handled; False when any key was claimed before (a
        re-delivery), across restarts and ``/forget``: a claim keeps a keyed hash only."""

    async def record_exchange(self, exchange: models.NewExchange) -> models.Episode | None:
        """Store a pending episode and a ledger entry for each message part sent. None when
        the asker was forgotten after the exchange began (``created_at``)."""

    async def extend_exchange(self, episode_id: int, *, message_ts: list[str], answer: str) -> bool:
        """Record more parts of an answer as Slack shows them (each votable at once), and
        its text so far; False when the exchange is gone (erased, withdrawn)."""

    async def withdraw_exchange(self, episode_id: int) -> bool:
        """Delete an exchange that turned out to be a notice, not an answer."""

    async def erase_replies(self, channel_id: str, message_ts: list[str]) -> None:
        """Record, as keyed hashes, that these messages of the bot answered someone since
        forgotten (an answer in flight at ``/forget``)."""

    async def erased_replies(self, channel_id: str, message_ts: Iterable[str]) -> set[str]: ...

    async def forgotten_at(
        self, user_ids: Iterable[str], *, team_id: str | None = None
    ) -> dict[str, datetime]:
        """When each person was last forgotten, or their workspace ``team_id`` erased,
        whichever is later (absent when never)."""

    async def first_parts(self, episode_ids: Iterable[int]) -> dict[int, str]:
        """The ``ts`` of the first message of each answer still in the ledger."""


class Questions(Protocol):
    """Questions kept until they are answered, leased to the process answering them (see
    :mod:`memory.sql.questions`)."""

    async def receive_question(
        self, question: models.NewQuestion, *keys: str, lease: timedelta
    ) -> models.PendingQuestion | None:
        """:meth:`ExchangeLedger.claim` the message and keep the question, leased to this
        process, in one write; None, and nothing kept, for a re-delivery or an asker
        forgotten since it arrived."""

    async def take_questions(
        self, *, now: datetime, lease: timedelta, limit: int
    ) -> list[models.PendingQuestion]:
        """Lease to this process the oldest questions whose lease ran out by ``now``; each
        take counts an attempt."""

    async def renew_questions(
        self, question_ids: Iterable[int], *, now: datetime, lease: timedelta
    ) -> int:
        """Extend this process's leases of these questions; how many it still held."""

    async def question_shown(self, question_id: int, episode_id: int) -> bool:
        """Note the exchange a question's answer was recorded as, as it showed, for a later
        attempt to take back; False when the question is gone."""

    async def finish_question(self, question_id: int) -> bool:
        """Delete a question once its asker has the answer, or was told why there is none."""

    async def release_questions(self, *, retry_at: datetime, question_id: int | None = None) -> int:
        """Let go of one question this process holds (every one, without ``question_id``),
        for any process to take from ``retry_at``."""


class VoteRecorder(Protocol):
    async def apply_vote(self, event: models.VoteEvent) -> models.VoteOutcome:
        """Turn a reaction (or button) on a ledger message into the episode's status."""


class Reasons(Protocol):
    """Why a person 👎'd an answer of theirs, in their words, asked once an answer. Only the
    asker's reason is kept, on their episode: seen where it is seen, erased with it."""

    async def ask_reason_once(
        self, episode_id: int, user_id: str, *, at: datetime
    ) -> models.Episode | None:
        """The episode the first time ``user_id`` is asked about their failure with no
        reason yet; None ever after (across processes too), and for anyone else's answer."""

    async def awaiting_reason(
        self, channel_id: str, thread_ts: str, user_id: str, *, since: datetime
    ) -> models.Episode | None:
        """The answer in this thread that ``user_id`` asked for and 👎'd most recently, at
        ``since`` or later, with no reason yet."""

    async def give_reason(
        self, episode_id: int, user_id: str, reason: str, *, at: datetime
    ) -> models.Episode | None:
        """Store the asker's reason for their 👎; None, and nothing stored, when it is not
        their failure or they were forgotten since ``at``."""


class Erasure(Protocol):
    """A person's right to see and erase what is kept about them."""

    async def export_user(self, user_id: str, *, team_id: str | None = None) -> models.UserExport:
        """Everything kept about the person (in workspace ``team_id``, when given)."""

    async def forget_user(self, user_id: str, *, at: datetime | None = None) -> models.ForgetReport:
        """Erase every row holding this person's data, leaving no trace on disk, and fence
        them off: nothing that started before ``at`` (default: now) writes about them after."""

    async def forget_workspace(
        self, team_id: str, *, at: datetime | None = None
    ) -> models.WorkspaceReport:
        """Erase everything kept of a workspace, and fence it off as a person's."""


class ReflectionQueue(Protocol):
    """Validated episodes awaiting a lesson (👎) or an importance score (👍)."""

    async def episodes_awaiting_reflection(
        self, *, limit: int, with_successes: bool = True
    ) -> list[models.Episode]: ...

    async def set_lesson(self, episode_id: int, lesson: str, *, reason: str | None = None) -> bool:
        """Attach a lesson if the episode is still a failure with the ``reason`` it was
        drafted from; False when a vote or a new reason came meanwhile."""

    async def set_importance(self, episode_id: int, importance: int) -> bool:
        """Store a 1-10 score if the episode is still a success."""


class ConsolidationSource(Protocol):
    """Recent validated episodes per (scope, person), and their wisdom notes."""

    async def scopes_with_recent_episodes(
        self, *, since: datetime
    ) -> list[tuple[models.Scope, str]]: ...

    async def list_episodes(
        self,
        user_id: str,
        *,
        scope: models.Scope | None = None,
        statuses: frozenset[models.EpisodeStatus] = VALIDATED,
        since: datetime | None = None,
        limit: int = 100,
        team_id: str | None = None,
    ) -> list[models.Episode]:
        """A person's episodes (in workspace ``team_id``, when given), newest first."""

    async def replace_wisdom(
        self,
        scope: models.Scope,
        user_id: str,
        notes: list[str],
        *,
        episode_count: int,
        at: datetime,
    ) -> list[models.WisdomNote]: ...


class Installations(Protocol):
    """The app's installations and the OAuth flow's one-time states, kept in the store so
    that every replica sharing it authorizes the same workspaces."""

    async def save_installation(self, record: models.InstallationRecord) -> None: ...

    async def find_installation(
        self, *, enterprise_id: str, team_id: str, user_id: str | None
    ) -> models.InstallationRecord | None:
        """The record of that user (``""``: the workspace's bot); with ``user_id`` None,
        the latest installer's."""

    async def delete_installations(
        self, *, enterprise_id: str, team_id: str, user_id: str | None = None
    ) -> int:
        """Delete that user's record (every record of the workspace with ``user_id`` None);
        how many went."""

    async def issue_oauth_state(self, state: str, *, expires_at: datetime, now: datetime) -> None:
        """Remember a state handed to a browser (and drop those expired by ``now``)."""

    async def consume_oauth_state(self, state: str, *, now: datetime) -> bool:
        """Whether ``state`` was issued and has not expired; it cannot be used again."""
