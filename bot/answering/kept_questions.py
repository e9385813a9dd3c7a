"""Questions kept in the store until they are answered, so that none Slack was told is
received dies with the process answering it (the store's side: :mod:`memory.sql.questions`).

A question is kept, with its message's claim, before Slack gets its 200
(:mod:`bot.listeners.keep_before_ack`), leased to this process. While it is being answered
(or waits in line) this process renews its lease; once its asker has the answer, or a
notice saying why there is none, it is finished (deleted). Every third of a lease this
process also takes up the questions no process is answering (theirs was killed, or let
them go) and answers them as if they had just arrived, within three bounds:

- one taken up more than ``max_attempts`` times is not tried again: it keeps failing (or
  keeps killing its process), so its asker is told so, and to ask again;
- one asked more than ``answer_within`` ago is not answered late: the conversation has
  moved on, so its asker is told it was not answered, and to ask again if it still matters;
- one Slack could not be reached for is let go, and tried again a lease later.

An answer whose process was killed after Slack showed part of it (or all of it, before
the question was finished) is taken back first: its parts are deleted and its exchange
withdrawn, so the asker ends up with one answer.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import ValidationError

from bot.answering.incoming import IncomingMessage
from bot.answering.patience import STORE_UNAVAILABLE, when_the_store_answers
from bot.answering.service import AnswerOutcome, AnswerService
from memory import NewQuestion, PendingQuestion, Questions, StoreError

__all__ = ["GAVE_UP", "TOO_LATE", "AnsweringFor", "KeptQuestions", "QuestionPolicy"]

log = logging.getLogger(__name__)

GAVE_UP = (
    "I was interrupted every time I tried to answer your question, so I've stopped trying; "
    "please ask it again."
)
TOO_LATE = (
    "I was interrupted while answering your question and it's too late to answer it now; "
    "please ask it again if you still need an answer."
)

AnsweringFor = Callable[[IncomingMessage], Awaitable[AnswerService]]
"""The answering service of a message's workspace (its bot, with its token)."""
Start = Callable[[Coroutine[Any, Any, Any]], object]
"""Runs work in the background, tracked for shutdown (:meth:`bot.answering.InFlight.start`)."""


@dataclass(frozen=True)
class QuestionPolicy:
    """``QUESTION_LEASE_SECONDS``, ``QUESTION_MAX_ATTEMPTS``, ``QUESTION_ANSWER_WITHIN_MINUTES``."""

    lease: timedelta
    """How long a question stays with the process answering it unless it renews the lease:
    a killed process's questions are taken up by another this long after, at most."""
    max_attempts: int
    """How many times a question may be taken up (its first receipt included)."""
    answer_within: timedelta
    """How long after it was asked a question taken up is still answered."""
    batch: int = 20
    """How many questions one look takes up at most."""

    @property
    def every_seconds(self) -> float:
        """How often to renew leases and take up questions: three times a lease, so a lease
        outlives two missed renewals."""
        return self.lease.total_seconds() / 3


class KeptQuestions:
    """This process's side of the kept questions: keeping, finishing, taking up."""

    def __init__(
        self,
        store: Questions,
        policy: QuestionPolicy,
        *,
        store_patience_seconds: float,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self.policy = policy
        self._patience = store_patience_seconds
        self._clock = clock
        self._answering: set[int] = set()
        """The kept questions this process is answering (or has waiting in line)."""
        self._taking = True

    async def keep(self, message: IncomingMessage) -> PendingQuestion | None:
        """Claim ``message`` and keep it as a question leased to this process, in one
        write; None when it was claimed before (a re-delivery: it is not answered again)."""
        question = NewQuestion(
            team_id=message.team_id,
            user_id=message.user_id,
            received_at=self._clock(),
            payload=message.model_dump_json(),
        )
        return await self._store.receive_question(
            question, *message.dedupe_keys, lease=self.policy.lease
        )

    async def answer(
        self, service: AnswerService, message: IncomingMessage, question: PendingQuestion
    ) -> AnswerOutcome:
        """Answer a kept question, then finish it (or let it go, when Slack was out of reach)."""
        self._answering.add(question.id)
        try:
            outcome = await service.answer(message, kept=question)
            await self._settle(question, outcome)
            return outcome
        finally:
            self._answering.discard(question.id)

    async def keep_and_answer(
        self, service: AnswerService, message: IncomingMessage
    ) -> AnswerOutcome:
        """Answer a question acknowledged without being kept (the database was out of
        reach): kept as soon as the database answers (within ``STORE_RETRY_SECONDS``), then
        answered as kept; its asker is told when the database stays away."""
        try:
            question = await when_the_store_answers(
                lambda: self.keep(message), within=self._patience
            )
        except StoreError as error:
            log.error("the memory store stayed unavailable (%s)", type(error).__name__)
            return await service.decline(
                message, STORE_UNAVAILABLE, outcome=AnswerOutcome.STORE_UNAVAILABLE
            )
        if question is None:
            return await service.redelivered(message)
        return await self.answer(service, message, question)

    async def tend(self, answering_for: AnsweringFor, start: Start) -> bool:
        """Renew the leases of the questions being answered here, and take up (with
        ``start``) the questions no process is answering; True when it took a full batch
        (there may be more: the scheduler runs it again at once)."""
        now = self._clock()
        lease = self.policy.lease
        if self._answering:
            await self._store.renew_questions(sorted(self._answering), now=now, lease=lease)
        if not self._taking:
            return False
        taken = await self._store.take_questions(now=now, lease=lease, limit=self.policy.batch)
        for question in taken:
            self._answering.add(question.id)  # its lease is renewed from now on
            start(self._take_up(question, answering_for))
        return len(taken) == self.policy.batch

    def stop_taking(self) -> None:
        """Take up no more questions (the process is stopping); leases are still renewed."""
        self._taking = False

    async def let_go(self) -> None:
        """Let every question this process still holds go, for another to take up at once
        (it is stopping: what it did not finish is abandoned)."""
        try:
            await self._store.release_questions(retry_at=self._clock())
        except StoreError as error:
            log.warning("could not let the questions go (%s)", type(error).__name__)

    async def _take_up(self, question: PendingQuestion, answering_for: AnsweringFor) -> None:
        try:
            try:
                message = IncomingMessage.model_validate_json(question.payload)
            except ValidationError:
                log.error("a kept question cannot be read; dropped (question %d)", question.id)
                await self._finish(question)
                return
            log.info(
                "taking up question %d of %s (attempt %d)",
                question.id,
                message.event_id,
                question.attempts,
            )
            service = await answering_for(message)
            if question.shown:
                await service.take_back(message, question)
            late = self._clock() - question.received_at > self.policy.answer_within
            if late or question.attempts > self.policy.max_attempts:
                notice = TOO_LATE if late else GAVE_UP
                outcome = await service.decline(message, notice, outcome=AnswerOutcome.ABANDONED)
                await self._settle(question, outcome)
                return
            await self.answer(service, message, question)
        finally:
            self._answering.discard(question.id)

    async def _settle(self, question: PendingQuestion, outcome: AnswerOutcome) -> None:
        """Finish the question, unless nobody could be told anything: then let it go, to be
        tried again a lease from now."""
        try:
            if outcome is AnswerOutcome.SLACK_UNREACHABLE:
                retry_at = self._clock() + self.policy.lease
                await when_the_store_answers(
                    lambda: self._store.release_questions(
                        retry_at=retry_at, question_id=question.id
                    ),
                    within=self._patience,
                )
            else:
                await self._finish(question)
        except StoreError as error:
            log.error(
                "question %d could not be settled (%s); it will be taken up again",
                question.id,
                type(error).__name__,
            )

    async def _finish(self, question: PendingQuestion) -> None:
        await when_the_store_answers(
            lambda: self._store.finish_question(question.id), within=self._patience
        )
