"""The store every backend is: each verb runs a function of :mod:`memory.sql` in one unit of
work, run by the backend (memory/README.md, *One verb, two databases*)."""

from __future__ import annotations

import inspect
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from functools import update_wrapper
from typing import Any, ParamSpec, TypeVar

from memory import models
from memory.config import MemoryConfig
from memory.privacy import Visibility
from memory.sql import episodes, erasure, fence, installations, questions, recall, votes
from memory.sql.session import Verb
from memory.sql.vote_queue import Filing, VoteQueue

P = ParamSpec("P")
T = TypeVar("T")


def _listed(values: Iterable[Any]) -> list[Any]:
    return [list(value) if isinstance(value, Iterator) else value for value in values]


def _as_is(verb: Verb[..., T]) -> Callable[..., Coroutine[Any, Any, T]]:
    """The store's verb running ``verb`` with its caller's arguments (an iterator as a list:
    PostgreSQL runs a transaction again after a conflict), and the store's own ``config``
    and ``holder`` where ``verb`` takes them. Its signature is ``verb``'s but for those."""
    signature = inspect.signature(verb)
    own = [name for name in ("config", "holder") if name in signature.parameters]

    async def run(self: MemoryStore, /, *args: Any, **kwargs: Any) -> T:
        args, kwargs = _listed(args), dict(zip(kwargs, _listed(kwargs.values()), strict=True))
        kwargs |= {name: getattr(self, f"_{name}") for name in own}
        return await self._run(verb, *args, **kwargs)

    _, *parameters = (p for p in signature.parameters.values() if p.name not in own)
    store = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    update_wrapper(run, verb).__signature__ = signature.replace(parameters=[store, *parameters])
    return run


class MemoryStore(ABC):
    """Everything the bot keeps about people: exchanges, votes, episodes, lessons, notes. The
    verbs callers use are declared, and documented, in :mod:`memory.callers`."""

    def __init__(self, config: MemoryConfig, filing: Filing) -> None:
        self._config = config
        self._votes = VoteQueue(self._apply_votes, filing)
        self._holder = uuid.uuid4().hex
        """Names this process where it leases questions, and episodes to reflect on."""

    @abstractmethod
    async def _run(self, verb: Verb[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T: ...

    @abstractmethod
    async def close(self) -> None: ...

    async def ping(self) -> None:
        """Read the store once, cheaply; raise if it cannot be read (for ``/readyz``)."""
        await self._run(lambda db: db.rows("SELECT 1 FROM episodes LIMIT 1"))

    @abstractmethod
    async def take_turn(self, job: str, *, every: timedelta) -> bool:
        """Whether this process runs the periodic ``job`` now: of all processes sharing the
        store, one a turn (``every`` long), so background work is done once, not per process."""

    async def tidy_index(self) -> bool:
        """One short step of the full-text index's upkeep, so that other calls are served
        between steps; True while there is more to do (never on PostgreSQL)."""
        return False

    receive_question = _as_is(questions.receive_question)
    take_questions = _as_is(questions.take_questions)
    renew_questions = _as_is(questions.renew_questions)
    question_shown = _as_is(questions.question_shown)
    finish_question = _as_is(questions.finish_question)
    release_questions = _as_is(questions.release_questions)
    import_episodes = _as_is(episodes.import_episodes)
    withdraw_exchange = _as_is(erasure.withdraw_exchange)
    answered_in_thread = _as_is(episodes.answered_in_thread)
    set_lesson = _as_is(episodes.set_lesson)
    awaiting_reason = _as_is(episodes.awaiting_reason)
    give_reason = _as_is(episodes.give_reason)
    set_importance = _as_is(episodes.set_importance)
    replace_wisdom = _as_is(episodes.replace_wisdom)
    list_episodes = _as_is(episodes.list_episodes)
    list_wisdom = _as_is(episodes.list_wisdom)
    forget_episode = _as_is(erasure.forget_episode)
    forget_wisdom = _as_is(erasure.forget_wisdom)
    erase_replies = _as_is(fence.erase_replies)
    export_user = _as_is(erasure.export_user)
    scopes_with_recent_episodes = _as_is(episodes.scopes_with_recent_episodes)
    stats = _as_is(episodes.stats)
    claim = _as_is(fence.claim)
    ask_reason_once = _as_is(episodes.ask_reason_once)
    wisdom = _as_is(episodes.wisdom_for)
    save_installation = _as_is(installations.save_installation)
    find_installation = _as_is(installations.find_installation)
    delete_installations = _as_is(installations.delete_installations)
    issue_oauth_state = _as_is(installations.issue_oauth_state)
    consume_oauth_state = _as_is(installations.consume_oauth_state)
    record_exchange = _as_is(episodes.record_exchange)
    extend_exchange = _as_is(episodes.extend_exchange)
    _apply_votes = _as_is(votes.apply_votes)
    first_parts = _as_is(episodes.first_parts)
    purge_expired = _as_is(episodes.purge_expired)
    erased_replies = _as_is(fence.erased_replies)
    forgotten_at = _as_is(fence.forgotten_at)
    recall = _as_is(recall.recall)

    @property
    def visibility(self) -> Visibility:
        return self._config.visibility

    async def apply_vote(self, event: models.VoteEvent) -> models.VoteOutcome:
        """Committed with the other votes waiting (see :mod:`memory.sql.vote_queue`)."""
        return await self._votes.apply(event)

    async def settle(self) -> None:
        """Wait until every vote so far is committed, and its episode filed."""
        await self._votes.settle()

    async def episodes_awaiting_reflection(
        self, *, limit: int, with_successes: bool = True
    ) -> list[models.Episode]:
        successes = with_successes and self._config.weights.importance > 0
        return await self._run(lambda db: db.awaiting_reflection(limit, successes, self._holder))

    async def forget_user(self, user_id: str, *, at: datetime | None = None) -> models.ForgetReport:
        return await self._run(erasure.forget_user, user_id, at or datetime.now(UTC), self._config)

    async def forget_workspace(
        self, team_id: str, *, at: datetime | None = None
    ) -> models.WorkspaceReport:
        return await self._run(erasure.forget_workspace, team_id, at or datetime.now(UTC))

    async def count(self, counter: str, *, by: int = 1) -> None:
        await self._run(lambda db: db.increment(counter, by))
