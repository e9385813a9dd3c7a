"""Recording an answer in the reaction ledger part by part, as Slack shows each part.

A reaction on part 1 of an answer still streaming must count, so the exchange is recorded
when its first part appears and every later part is added as it appears; the full text is
stored when the answer is done. A notice (the model is unavailable, produced nothing,
something went wrong) is not an answer: the recording stops before a notice is shown, and
whatever was recorded of the turn is withdrawn.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from bot.answering.incoming import IncomingMessage
from memory import Episode, ExchangeLedger, NewExchange

__all__ = ["AnswerLedger"]

log = logging.getLogger(__name__)


class AnswerLedger:
    """The ledger entries of one answer; ``shown`` is the reply's ``on_shown``."""

    def __init__(
        self,
        memory: ExchangeLedger,
        message: IncomingMessage,
        question: str,
        *,
        started_at: datetime,
        on_recorded: Callable[[int], Awaitable[None]] | None = None,
    ) -> None:
        self._memory = memory
        self._message = message
        self._question = question
        self._started_at = started_at
        self._on_recorded = on_recorded
        """Told the exchange's id once it is recorded (a kept question notes it)."""
        self._episode: Episode | None = None
        self._open = True
        self._erasing = False
        """The asker was forgotten since the answer began: its parts are marked erased."""
        self.lost = False
        """The store failed: the answer was shown but cannot be voted on."""

    async def shown(self, ts: str, *, answer: str) -> None:
        """A part of the answer is on screen: make it votable now."""
        if self._erasing:
            await self._erase([ts])
            return
        if not self._open:
            return
        try:
            if self._episode is None:
                self._episode = await self._memory.record_exchange(
                    NewExchange(
                        scope=self._message.scope,
                        requester_id=self._message.user_id,
                        thread_ts=self._message.reply_thread_ts,
                        question=self._question,
                        answer=answer,
                        message_ts=[ts],
                        created_at=self._started_at,
                    )
                )
                if self._episode is None:
                    await self._refused([ts])
                elif self._on_recorded is not None:
                    await self._on_recorded(self._episode.id)
            elif not await self._memory.extend_exchange(
                self._episode.id, message_ts=[ts], answer=answer
            ):
                await self._refused([ts])
        except Exception as error:
            # The person has the answer; only the chance to vote on it is lost.
            log.error("answer part shown but not recorded (%s)", type(error).__name__)
            self._open = False
            self.lost = True

    async def complete(self, message_ts: list[str], *, answer: str) -> bool:
        """The answer is done: store its whole text and every part; whether it is recorded."""
        if self._erasing:
            await self._erase(message_ts)
            return False
        if not self._open or self._episode is None:
            return False
        self._open = False
        try:
            return await self._memory.extend_exchange(
                self._episode.id, message_ts=message_ts, answer=answer
            )
        except Exception as error:
            log.error("answer shown but not fully recorded (%s)", type(error).__name__)
            self.lost = True
            return False

    async def withdraw(self) -> None:
        """The turn ends in a notice: record nothing more and delete what was recorded."""
        self._open = False
        episode, self._episode = self._episode, None
        if episode is not None:
            await self._memory.withdraw_exchange(episode.id)

    async def _refused(self, message_ts: list[str]) -> None:
        """The asker was forgotten since the answer began (or it was erased): record no
        more, and mark its parts as replies to someone forgotten, for history to leave out."""
        log.info("answer not recorded: its asker was forgotten meanwhile")
        self._open = False
        self._episode = None
        self._erasing = True
        await self._erase(message_ts)

    async def _erase(self, message_ts: list[str]) -> None:
        try:
            await self._memory.erase_replies(self._message.channel_id, message_ts)
        except Exception as error:
            log.error("could not mark a reply as erased (%s)", type(error).__name__)
