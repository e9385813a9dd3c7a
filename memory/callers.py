"""What each caller needs of the store, as small protocols sized to its use
(memory/README.md, *The package and its callers*)."""

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
        """Claim the message these keys name (an event id, ``channel:ts``); False when any
        was claimed before (a re-delivery), across restarts and ``/forget``: a claim keeps a
        keyed hash only."""

    async def record_exchange(self, exchange: models.NewExchange) -> models.Episode | None:
        """A pending episode, and a ledger entry per part sent; None when the asker was
        forgotten since ``created_at``."""

    async def extend_exchange(self, episode_id: int, *, message_ts: list[str], answer: str) -> bool:
        """More parts, each votable as Slack shows it, and the text so far; False when the
        exchange is gone (erased, withdrawn)."""

    async def withdraw_exchange(self, episode_id: int) -> bool:
        """Delete an exchange that turned out to be a notice, not an answer."""

    async def erase_replies(self, channel_id: str, message_ts: list[str]) -> None:
        """Record, as keyed hashes, these answers to someone since forgotten (in flight at
        ``/forget``)."""

    async def erased_replies(self, channel_id: str, message_ts: Iterable[str]) -> set[str]: ...

    async def forgotten_at(
        self, user_ids: Iterable[str], *, team_id: str | None = None
    ) -> dict[str, datetime]:
        """When each person, or their workspace ``team_id``, was last forgotten (absent: never)."""

    async def first_parts(self, episode_ids: Iterable[int]) -> dict[int, str]:
        """The ``ts`` of the first message of each answer still in the ledger."""


class Questions(Protocol):
    """Questions kept until answered, leased to the process answering them."""

    async def receive_question(
        self, question: models.NewQuestion, *keys: str, lease: timedelta
    ) -> models.PendingQuestion | None:
        """:meth:`ExchangeLedger.claim` and keep the question, leased here, in one write;
        None, and nothing kept, for a re-delivery or an asker forgotten since."""

    async def take_questions(
        self, *, now: datetime, lease: timedelta, limit: int
    ) -> list[models.PendingQuestion]:
        """Lease the oldest questions whose lease ran out by ``now``, counting an attempt."""

    async def renew_questions(
        self, question_ids: Iterable[int], *, now: datetime, lease: timedelta
    ) -> int:
        """Extend this process's leases of these questions; how many it still held."""

    async def question_shown(self, question_id: int, episode_id: int) -> bool:
        """Note the exchange the answer was recorded as, for a later attempt to take back;
        False when the question is gone."""

    async def finish_question(self, question_id: int) -> bool:
        """Delete a question once its asker has the answer, or was told why there is none."""

    async def release_questions(self, *, retry_at: datetime, question_id: int | None = None) -> int:
        """Let go of one question held here (every one, without ``question_id``), for any
        process to take from ``retry_at``."""


class VoteRecorder(Protocol):
    async def apply_vote(self, event: models.VoteEvent) -> models.VoteOutcome:
        """Turn a reaction (or button) on a ledger message into the episode's status."""


class Reasons(Protocol):
    """Why a person 👎'd their own answer, asked once; kept on their episode, seen and erased
    with it."""

    async def ask_reason_once(
        self, episode_id: int, user_id: str, *, at: datetime
    ) -> models.Episode | None:
        """The episode the first time its asker is asked about their 👎 with no reason yet;
        None ever after (across processes too), and for anyone else's answer."""

    async def awaiting_reason(
        self, channel_id: str, thread_ts: str, user_id: str, *, since: datetime
    ) -> models.Episode | None:
        """The answer ``user_id`` asked for in this thread and 👎'd last, since ``since``,
        with no reason yet."""

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
        """Erase the person's every row, leaving no trace on disk, and fence them off:
        nothing that started before ``at`` (default: now) writes about them after."""

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
        """False when a vote or a new reason came since the lesson was drafted."""

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
    """Installations and OAuth states, in the store: every replica authorizes the same
    workspaces."""

    async def save_installation(self, record: models.InstallationRecord) -> None: ...

    async def find_installation(
        self, *, enterprise_id: str, team_id: str, user_id: str | None
    ) -> models.InstallationRecord | None:
        """That user's record (``""``: the bot's); with ``user_id`` None, the last installer's."""

    async def delete_installations(
        self, *, enterprise_id: str, team_id: str, user_id: str | None = None
    ) -> int:
        """Delete that user's record (all the workspace's, ``user_id`` None); how many went."""

    async def issue_oauth_state(self, state: str, *, expires_at: datetime, now: datetime) -> None:
        """Remember a state handed to a browser (and drop those expired by ``now``)."""

    async def consume_oauth_state(self, state: str, *, now: datetime) -> bool:
        """Whether ``state`` was issued and has not expired; it cannot be used again."""
