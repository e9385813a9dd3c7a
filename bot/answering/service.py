"""Answering one person's message: dedupe, context, recall and advice, agent run, streamed
reply with feedback buttons, ledger."""

from __future__ import annotations

import copy
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from enum import StrEnum
from functools import partial
from typing import Any, Protocol, TypeVar

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.agent import NARROW_DOWN_TEXT, OnTool, ToolCall, ToolStage
from bot.agent.messages import Conversation, Message
from bot.agent.provider import ModelUnavailable
from bot.agent.result import StopReason
from bot.agent.tools.errors import ToolError
from bot.answering.attachments import ImageIntake, VisionSettings, attached_line
from bot.answering.history import BotIdentity, authors, strip_mention, thread_history
from bot.answering.incoming import IncomingMessage
from bot.answering.learned_from import rated_answers
from bot.answering.ledger import AnswerLedger
from bot.answering.patience import STORE_UNAVAILABLE, when_the_store_answers
from bot.answering.private_line import tell_privately
from bot.answering.tool_tasks import task_update
from bot.answering.waiting_line import Declined, WaitingLine
from bot.answering.working_notes import has_notes, note_turn, thread_key, working_notes
from bot.assistant.context import AssistantContext, SlackDirectory
from bot.assistant.prompt import render_experience
from bot.assistant.reasons import Reasons, asks_question
from bot.observability import EventRecord, Observer, timed
from bot.slack.streaming import TITLE_LIMIT, Reply, ReplyTarget, open_reply
from bot.slack.unreachable import SLACK_TRANSPORT_ERRORS, slack_unreachable
from bot.views import FEEDBACK_FOOTERS
from bot.views.learned import LEARNED_TEXT, learned_from_block
from memory import (
    Episode,
    MemoryStore,
    PendingQuestion,
    PlanAdvisor,
    RecalledEpisode,
    RecallRequest,
    StoreError,
    WorkingMemory,
)
from memory.text import shorten

__all__ = [
    "MAX_QUESTION_CHARS",
    "MISCONFIGURED",
    "MODEL_UNAVAILABLE",
    "REASON_THANKS",
    "REJECTED_NOTE",
    "SOMETHING_WENT_WRONG",
    "AnswerAgent",
    "AnswerOutcome",
    "AnswerService",
    "is_notice",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

MODEL_UNAVAILABLE = (
    "The language model is unavailable right now, so I couldn't answer. "
    "Please try again in a few minutes."
)
MISCONFIGURED = (
    "I couldn't answer: the bot is misconfigured (its language model refuses it). "
    "Please tell the bot's admin."
)
SOMETHING_WENT_WRONG = "Something went wrong while I was answering; please ask again."
REASON_THANKS = "Thanks for telling me what went wrong: I'll keep it in mind next time."
REJECTED_NOTE = (
    "The person marked your previous answer in this conversation 👎, and their message "
    "below says what was wrong with it. Do not give that answer again; answer with what "
    "they said in mind."
)
MAX_QUESTION_CHARS = 8000
HISTORY_TOKEN_BUDGET = 3000
"""The most tokens of a thread's earlier messages that go into a prompt."""
TRUNCATION_NOTE = "_Your message was very long, so I only read its first {limit:,} characters._\n\n"
MODEL_TRUNCATION_NOTE = (
    "\n\n[The message was cut here: only its first {limit:,} characters are shown.]"
)


class AgentAnswer(Protocol):
    text: str
    conversation: Conversation
    tool_errors: list[ToolError]
    stop_reason: StopReason


NOTICE_STOPS: frozenset[StopReason] = frozenset({"empty_reply", "loop_detected"})
"""How the agent ends with a notice of its own: it produced nothing, or gave up on a tool."""


def is_notice(result: AgentAnswer) -> bool:
    """Whether the agent ended with a notice rather than an answer: nothing to vote on.

    Out of steps with a draft, the draft is shown with a note and is an answer; without
    one, only the note (:data:`~bot.agent.NARROW_DOWN_TEXT`) is."""
    return result.stop_reason in NOTICE_STOPS or result.text.strip() == NARROW_DOWN_TEXT


class AnswerAgent(Protocol):
    """What the service needs of :class:`bot.agent.Agent`."""

    async def run(
        self,
        conversation: Conversation,
        *,
        context: AssistantContext,
        on_text: Callable[[str], Awaitable[None]] | None = None,
        on_tool: OnTool | None = None,
    ) -> AgentAnswer: ...


class AnswerOutcome(StrEnum):
    ANSWERED = "answered"
    DUPLICATE = "duplicate"
    MODEL_UNAVAILABLE = "model_unavailable"
    MISCONFIGURED = "misconfigured"
    AT_CAPACITY = "at_capacity"
    """Declined by the waiting line: too many waiting, or waited too long."""
    STORE_UNAVAILABLE = "store_unavailable"
    """The database stayed out of reach for longer than the bot waits for it."""
    SLACK_UNREACHABLE = "slack_unreachable"
    """Slack could not be reached, so nobody could be told anything: a kept question is
    tried again later (see :mod:`bot.answering.kept_questions`)."""
    ABANDONED = "abandoned"
    """A kept question not answered after all (taken up too late, or too many times): its
    asker was told to ask again."""
    NO_ANSWER = "no_answer"
    """The agent ended with a notice (no answer, out of steps...): shown, never recorded."""
    REASON = "reason"
    """A reply that only says why the person 👎'd an answer: kept as that reason and
    acknowledged, not answered (see :mod:`bot.assistant.reasons`)."""
    FAILED = "failed"


class AnswerService:
    """Gives each person's message exactly one answer and records it in the ledger."""

    def __init__(
        self,
        *,
        client: AsyncWebClient,
        memory: MemoryStore,
        agent: AnswerAgent,
        directory: SlackDirectory,
        identity: BotIdentity,
        working_memory: WorkingMemory,
        reasons: Reasons | None = None,
        recall_limit: int = 5,
        recall_token_budget: int = 1500,
        line: WaitingLine | None = None,
        store_patience_seconds: float = 60.0,
        observer: Observer | None = None,
        images: ImageIntake | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._memory = memory
        self._advisor = PlanAdvisor(memory)
        self._reasons = reasons
        """Takes a reply in the thread of an answer its writer just 👎'd as the reason."""
        self.working_memory = working_memory
        """Per-person, per-thread notes of running conversations (dropped by ``/forget``)."""
        self._recall_limit = recall_limit
        self._recall_token_budget = recall_token_budget
        self._agent = agent
        self._images = images or ImageIntake(VisionSettings())
        """Turns a message's attached files into the turn's images (vision off by default)."""
        self._client = client
        self._directory = directory
        self.identity = identity
        self.line = line or WaitingLine(16, max_waiting=500, max_wait_seconds=600)
        """Where a question waits for one of the answers worked on at once."""
        self.store_patience_seconds = store_patience_seconds
        """How long an acknowledged question waits for an unreachable database."""
        self._observer = observer or Observer()
        self._clock = clock

    def for_workspace(
        self, client: AsyncWebClient, identity: BotIdentity, directory: SlackDirectory
    ) -> AnswerService:
        """This service answering as the bot of another workspace, with its client (and
        token): memory, the agent and the limit on answers at once stay shared."""
        other = copy.copy(self)
        other._client, other.identity, other._directory = client, identity, directory
        return other

    async def answer(
        self, message: IncomingMessage, *, kept: PendingQuestion | None = None
    ) -> AnswerOutcome:
        """Answer once, logged as one ``answer`` event line (ids and timings, no text).

        A ``kept`` question (see :mod:`bot.answering.kept_questions`) had its message
        claimed when it was kept, and is answered as of when it was received."""
        async with self._logged(message) as event:
            now = self._clock() if kept is None else kept.received_at
            question, truncated = self._question(message)
            ledger = AnswerLedger(
                self._memory,
                message,
                question,
                started_at=now,
                on_recorded=None if kept is None else partial(self._note_shown, kept),
            )

            async def shown(ts: str) -> None:
                await ledger.shown(ts, answer=reply.text)

            reply = open_reply(self._client, self._target(message), on_shown=shown)
            try:
                outcome = await self._answer(
                    message, question, truncated, reply, ledger, now, claimed=kept is not None
                )
            except Exception as error:
                outcome = await self._failed(error, message, reply, ledger)
            event.outcome = outcome.value
            return outcome

    async def decline(
        self, message: IncomingMessage, notice: str, *, outcome: AnswerOutcome
    ) -> AnswerOutcome:
        """Tell the asker, in ``notice``, that their question will not be answered, logged
        as its ``answer`` event line with ``outcome`` (``slack_unreachable`` instead when
        nobody could be told)."""
        async with self._logged(message) as event:
            try:
                await open_reply(self._client, self._target(message)).fail(notice)
            except SLACK_TRANSPORT_ERRORS as error:
                log.error("could not tell the person: %s", slack_unreachable(error))
                outcome = AnswerOutcome.SLACK_UNREACHABLE
            except SlackApiError as error:  # refused for good: telling again changes nothing
                log.error("could not tell the person: %s", error.response.get("error"))
            event.outcome = outcome.value
            return outcome

    async def take_back(self, message: IncomingMessage, kept: PendingQuestion) -> None:
        """Delete the parts of an answer to ``kept`` that an earlier attempt showed (it was
        killed before it was done, or before it could note that it was), and their record:
        the question is answered again in full."""
        for ts in kept.shown:
            try:
                await self._client.chat_delete(channel=message.channel_id, ts=ts)
            except SlackApiError as error:
                log.warning("could not take back a part shown (%s)", error.response.get("error"))
        if kept.episode_id is not None:
            await self._memory.withdraw_exchange(kept.episode_id)

    async def _note_shown(self, kept: PendingQuestion, episode_id: int) -> None:
        """Note which exchange a kept question's answer is, as it shows (best effort: if
        the note is lost, a later attempt leaves the parts shown where they are)."""
        try:
            await self._memory.question_shown(kept.id, episode_id)
        except StoreError as error:
            log.warning("could not note a kept question's answer (%s)", type(error).__name__)

    async def redelivered(self, message: IncomingMessage) -> AnswerOutcome:
        """Log a message handled before (Slack's retry of it), as its ``answer`` line."""
        async with self._logged(message) as event:
            event.outcome = AnswerOutcome.DUPLICATE.value
        return AnswerOutcome.DUPLICATE

    def _logged(self, message: IncomingMessage) -> AbstractAsyncContextManager[EventRecord]:
        return self._observer.event(
            "answer",
            event_id=message.event_id,
            team=message.team_id,
            channel=message.channel_id,
            user=message.user_id,
        )

    def _target(self, message: IncomingMessage) -> ReplyTarget:
        """Where the answer to ``message`` goes."""
        return ReplyTarget(
            channel_id=message.channel_id,
            thread_ts=message.reply_thread_ts,
            team_id=message.team_id,
            user_id=message.user_id,
            title=self._title(message),
        )

    async def _answer(
        self,
        message: IncomingMessage,
        question: str,
        truncated: bool,
        reply: Reply,
        ledger: AnswerLedger,
        now: datetime,
        *,
        claimed: bool,
    ) -> AnswerOutcome:
        """Claim the message (unless ``claimed`` already), take a reason for a 👎 given in
        it, then answer in turn: the agent's reply shown as it streams, recorded in the
        ledger. Whatever ends it early is raised, for :meth:`_failed` to tell."""
        if not claimed and not await self._patiently(
            lambda: self._memory.claim(*message.dedupe_keys, at=now, team_id=message.team_id)
        ):
            log.debug("already handled %s", message.event_id)
            return AnswerOutcome.DUPLICATE
        rejected = await self._reason_in(message, question, now)
        if rejected is not None:
            await self._tell_privately(message, REASON_THANKS)
            if not asks_question(question):
                return AnswerOutcome.REASON
        async with self.line.turn(message.user_id, on_wait=reply.wait):
            await reply.begin()
            attachments = await self._images.take(message.files, token=self._client.token or "")
            if truncated:
                await reply.write(TRUNCATION_NOTE.format(limit=MAX_QUESTION_CHARS))
            if note := attachments.note_for_person():
                await reply.write(note)
            recalled, earlier = await self._patiently(lambda: self._context(message, question, now))
            conversation = Conversation(
                messages=[
                    *earlier,
                    *([Message.system(REJECTED_NOTE)] if rejected is not None else []),
                    Message.user(question + attachments.note_for_model(), attachments.images),
                ]
            )
            context = AssistantContext(
                thread=thread_key(message),
                now=now,
                requester_id=message.user_id,
                scope=message.scope,
                thread_ts=message.reply_thread_ts,
                memory=self._memory,
                slack=self._directory,
                recalled=recalled,
            )
            streamed: list[str] = []

            async def show(text: str) -> None:
                streamed.append(text)
                await reply.write(text)

            async def show_tool(call: ToolCall, stage: ToolStage) -> None:
                await reply.task(task_update(call, stage))

            result = await self._agent.run(
                conversation, context=context, on_text=show, on_tool=show_tool
            )
            note_turn(self.working_memory, message, question, result, started_at=now)
            if is_notice(result):
                # Shown as it streamed, but not an answer: nothing about it stays votable.
                await ledger.withdraw()
                await self._show_rest(reply, "".join(streamed), result.text)
                await reply.finish()
                return AnswerOutcome.NO_ANSWER
            await self._show_rest(reply, "".join(streamed), result.text)
            return await self._record(message, reply, ledger, recalled)

    async def _record(
        self,
        message: IncomingMessage,
        reply: Reply,
        ledger: AnswerLedger,
        recalled: list[RecalledEpisode],
    ) -> AnswerOutcome:
        """Finish the shown answer with its feedback buttons (and the rated answers it drew
        on) and record it in the ledger."""
        learned = await self._learned_from(message, recalled)
        footers = FEEDBACK_FOOTERS
        if learned is not None and message.is_dm:
            footers = tuple([learned, *footer] for footer in FEEDBACK_FOOTERS)
        timestamps = await reply.finish(footers)
        await ledger.complete(timestamps, answer=reply.text)
        if learned is not None and not message.is_dm:
            # In a channel the thread's readers see the answer, not which votes it drew on.
            await self._tell_privately(message, LEARNED_TEXT, blocks=[learned])
        return AnswerOutcome.FAILED if ledger.lost else AnswerOutcome.ANSWERED

    async def _failed(
        self, error: Exception, message: IncomingMessage, reply: Reply, ledger: AnswerLedger
    ) -> AnswerOutcome:
        """What answering ``message`` came to when ``error`` ended it, the asker told why
        (unless Slack is out of reach). Called while ``error`` is handled."""
        if isinstance(error, Declined):
            log.warning("declined %s: %d waiting", message.event_id, self.line.waiting)
            await self._notify(reply, ledger, error.notice)
            return AnswerOutcome.AT_CAPACITY
        if isinstance(error, StoreError):
            log.error("the memory store stayed unavailable (%s)", type(error).__name__)
            await self._notify(reply, ledger, STORE_UNAVAILABLE)
            return AnswerOutcome.STORE_UNAVAILABLE
        if isinstance(error, SLACK_TRANSPORT_ERRORS):  # nobody can be told: Slack is out of reach
            log.error(
                "could not answer %s: %s",
                message.event_id,
                slack_unreachable(error, timeout=self._client.timeout),
            )
            return AnswerOutcome.SLACK_UNREACHABLE
        if isinstance(error, ModelUnavailable):
            if error.permanent:
                log.error("the model endpoint refuses the bot's configuration: %s", error)
                await self._notify(reply, ledger, MISCONFIGURED)
                return AnswerOutcome.MISCONFIGURED
            log.warning("model unavailable: %s", error)
            await self._notify(reply, ledger, MODEL_UNAVAILABLE)
            return AnswerOutcome.MODEL_UNAVAILABLE
        log.exception("answering %s failed", message.event_id)
        await self._notify(reply, ledger, SOMETHING_WENT_WRONG)
        return AnswerOutcome.FAILED

    async def _tell_privately(
        self, message: IncomingMessage, text: str, *, blocks: list[dict[str, Any]] | None = None
    ) -> None:
        """A line only the writer of ``message`` sees, in its thread."""
        await tell_privately(
            self._client,
            text,
            channel_id=message.channel_id,
            user_id=message.user_id,
            thread_ts=message.reply_thread_ts,
            blocks=blocks,
        )

    async def _context(
        self, message: IncomingMessage, question: str, now: datetime
    ) -> tuple[list[RecalledEpisode], list[Message]]:
        """The episodes recalled for the question, and what the model is given before it:
        the thread so far, past experience and working notes."""
        recalled = await self._recall(message, question, now)
        earlier = [
            *await self._history(message),
            *await self._experience(message, recalled),
            *await self._working_notes(message),
        ]
        return recalled, earlier

    async def _patiently(self, call: Callable[[], Awaitable[T]]) -> T:
        """``call()``, waiting out a database restart: Slack will not send the question again."""
        return await when_the_store_answers(call, within=self.store_patience_seconds)

    async def _learned_from(
        self, message: IncomingMessage, recalled: list[RecalledEpisode]
    ) -> dict[str, Any] | None:
        """The context line naming the asker's rated answers this answer drew on; None when
        it drew on none (or they cannot be linked now)."""
        try:
            answers = await rated_answers(self._memory, self._client, message, recalled)
        except Exception as error:
            log.warning("could not link the answers learned from (%s)", type(error).__name__)
            return None
        return learned_from_block(answers) if answers else None

    @staticmethod
    async def _show_rest(reply: Reply, streamed: str, final_text: str) -> None:
        """Show whatever part of the final text the agent did not stream."""
        if final_text.startswith(streamed):
            await reply.write(final_text[len(streamed) :])
        else:
            log.warning("the agent's final text differs from what it streamed; keeping both")
            await reply.write(f"\n\n{final_text}")

    def _title(self, message: IncomingMessage) -> str | None:
        """A new conversation's title: its first question, on one line, cut short."""
        if not message.starts_conversation:
            return None
        return shorten(strip_mention(message.text, self.identity), TITLE_LIMIT) or None

    def _question(self, message: IncomingMessage) -> tuple[str, bool]:
        """The text the model reads and the ledger keeps, with the attachments' names and
        types (never their content), and whether it was cut."""
        text = strip_mention(message.text, self.identity)
        truncated = len(text) > MAX_QUESTION_CHARS
        if truncated:
            text = text[:MAX_QUESTION_CHARS] + MODEL_TRUNCATION_NOTE.format(
                limit=MAX_QUESTION_CHARS
            )
        return "\n".join(part for part in (text, attached_line(message.files)) if part), truncated

    async def _history(self, message: IncomingMessage) -> list[Message]:
        """The conversation so far: the thread's messages. A message at the top level (of a
        DM, or a mention) starts a conversation, so it has none."""
        if message.thread_ts is None:
            return []
        try:
            earlier = await self._directory.thread_messages(message.channel_id, message.thread_ts)
        except SlackApiError as error:
            log.info("conversation history unavailable: %s", error.response.get("error"))
            return []
        return thread_history(
            earlier,
            identity=self.identity,
            requester_id=message.user_id,
            before_ts=message.ts,
            token_budget=HISTORY_TOKEN_BUDGET,
            forgotten=await self._memory.forgotten_at(
                authors(earlier, self.identity), team_id=message.team_id
            ),
            erased_replies=await self._memory.erased_replies(
                message.channel_id, [str(m.get("ts")) for m in earlier if self.identity.wrote(m)]
            ),
        )

    async def _reason_in(
        self, message: IncomingMessage, question: str, now: datetime
    ) -> Episode | None:
        """The answer whose 👎 this message gives the reason for, now stored with it; None
        when it is not such a reply (or the store could not tell: it is answered as usual)."""
        if self._reasons is None:
            return None
        try:
            return await self._reasons.from_reply(
                message.channel_id, message.thread_ts, message.user_id, question, at=now
            )
        except Exception as error:
            log.error("could not check for a reason (%s); answering", type(error).__name__)
            return None

    async def _working_notes(self, message: IncomingMessage) -> list[Message]:
        """The asker's working notes in this thread, minus what turns before their last
        ``/forget`` noted: that ``/forget`` may have been handled by another replica or the
        admin CLI, which cannot reach this process's notes."""
        if not has_notes(self.working_memory, message):
            return []
        forgotten = await self._memory.forgotten_at([message.user_id], team_id=message.team_id)
        return working_notes(
            self.working_memory, message, forgotten_at=forgotten.get(message.user_id)
        )

    async def _recall(
        self, message: IncomingMessage, question: str, now: datetime
    ) -> list[RecalledEpisode]:
        request = RecallRequest(
            scope=message.scope,
            requester_id=message.user_id,
            text=question,
            limit=self._recall_limit,
            token_budget=self._recall_token_budget,
            now=now,
        )
        with timed("recall"):
            return await self._memory.recall(request)

    async def _experience(
        self, message: IncomingMessage, recalled: list[RecalledEpisode]
    ) -> list[Message]:
        """The plan advisor's advice (similar rated exchanges, their lessons, the scope's
        wisdom notes), as one system message; none when nothing validated is relevant.

        The advice is built from the episodes already recalled for this turn (the store is
        searched once a question) and holds all of them, so they are not listed twice."""
        advice = await self._advisor.advice_from(message.scope, message.user_id, recalled)
        text = render_experience(advice) if advice is not None else ""
        return [Message.system(text)] if text else []

    @staticmethod
    async def _notify(reply: Reply, ledger: AnswerLedger, notice: str) -> None:
        """End the turn with a notice; whatever was recorded of it is withdrawn first."""
        try:
            await ledger.withdraw()
        except Exception as error:
            log.error("could not withdraw a failed answer (%s)", type(error).__name__)
        try:
            await reply.fail(notice)
        except SlackApiError as error:
            log.error("could not tell the person: %s", error.response.get("error"))
        except SLACK_TRANSPORT_ERRORS as error:
            log.error("could not tell the person: %s", slack_unreachable(error))
