"""Why a person 👎'd an answer: asking them once, and keeping what they say as the reason.

A reason reaches the bot two ways: the small form behind the button of the private note
sent after a 👎 (:mod:`bot.listeners.views.reason_submitted`), or a reply in the answer's
thread soon after the 👎 (:meth:`Reasons.from_reply`). Either is stored on the person's
episode (only the asker's reason counts, as only their vote does) and wakes reflection,
which drafts the lesson again with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

from memory import Episode, EpisodeStatus, VoteEvent, VoteOutcome
from memory import Reasons as ReasonStore
from memory.text import shorten

__all__ = ["MAX_REASON_CHARS", "Reasons", "asks_question"]

MAX_REASON_CHARS = 1000
"""A reason is kept to this many characters (the form accepts no more)."""

_QUESTION_OPENINGS = frozenset(
    {
        "how",
        "what",
        "why",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "can",
        "could",
        "would",
        "should",
        "will",
        "is",
        "are",
        "do",
        "does",
        "did",
        "please",
        "pls",
        "show",
        "tell",
        "give",
        "explain",
        "help",
        "write",
        "list",
        "try",
        "make",
        "find",
        "describe",
        "suggest",
    }
)
"""Words that open a question or a request (``how do I...``, ``show me...``, ``try
again``); a sentence opening with one asks something."""
_SENTENCE_START = re.compile(r"(?:^|[.!;:\n]\s*)([A-Za-z']+)(?:\s+([A-Za-z']+))?")


def asks_question(text: str) -> bool:
    """Whether a reply asks something, rather than only saying what was wrong: it has a
    question mark, or one of its sentences opens with a question or request word (but
    not ``do not``, a correction). ``that wiped out my changes`` asks nothing; ``that
    wiped out my changes, how do I get them back?`` and ``try again without --hard`` do."""
    if "?" in text:
        return True
    for match in _SENTENCE_START.finditer(text):
        first, second = match[1].lower(), (match[2] or "").lower()
        if first in _QUESTION_OPENINGS and not (first == "do" and second == "not"):
            return True
    return False


class Reasons:
    """Decides whom to ask why, and stores what they answer. ``on_given`` is called for each
    reason stored (the app wakes reflection, to draft the lesson again)."""

    def __init__(
        self,
        store: ReasonStore,
        on_given: Callable[[], None],
        *,
        ask: bool = True,
        reply_window: timedelta = timedelta(minutes=10),
    ) -> None:
        self._store = store
        self._on_given = on_given
        self._ask = ask
        self._reply_window = reply_window

    def may_ask(self, event: VoteEvent, outcome: VoteOutcome) -> bool:
        """Whether this vote is one to ask its voter why about: a 👎 they just added to
        their own answer (stored, so it was theirs to cast), when asking is on. Decided
        without the store, so most votes (a 👍) cost nothing more."""
        return bool(
            self._ask
            and event.added
            and outcome.applied
            and outcome.episode_id
            and outcome.status is EpisodeStatus.FAILURE
        )

    async def to_ask_about(self, event: VoteEvent, outcome: VoteOutcome) -> Episode | None:
        """The answer whose asker this vote should ask why: one it :meth:`may_ask` about,
        the first time for that answer; else None."""
        if not self.may_ask(event, outcome) or outcome.episode_id is None:
            return None
        return await self._store.ask_reason_once(outcome.episode_id, event.voter_id, at=event.at)

    async def from_reply(
        self, channel_id: str, thread_ts: str | None, user_id: str, text: str, *, at: datetime
    ) -> Episode | None:
        """Take a reply as the reason for the 👎 its writer gave an answer of theirs in this
        thread within the reply window before ``at``; the episode it was stored on, or None
        when the reply is not one (the window is 0, no such 👎, a reason was given)."""
        if thread_ts is None or self._reply_window <= timedelta(0):
            return None
        voted = await self._store.awaiting_reason(
            channel_id, thread_ts, user_id, since=at - self._reply_window
        )
        if voted is None:
            return None
        return await self.give(voted.id, user_id, text, at=at)

    async def give(
        self, episode_id: int, user_id: str, text: str, *, at: datetime
    ) -> Episode | None:
        """Store ``text`` as ``user_id``'s reason for their 👎 of this answer; None when it is
        empty, or not their failure (the store checks), or they were forgotten since ``at``."""
        reason = shorten(text.strip(), MAX_REASON_CHARS)
        if not reason:
            return None
        given = await self._store.give_reason(episode_id, user_id, reason, at=at)
        if given is not None:
            self._on_given()
        return given
