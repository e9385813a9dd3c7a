"""Distils each person's recent validated episodes into a few wisdom notes, per scope.

Recall brings back individual exchanges; wisdom notes carry what many of them have in
common ("prefers answers with a runnable command", "our staging cluster is called blue").
Run periodically (the app's schedule, or ``python -m bot consolidate``).
"""

from __future__ import annotations

import logging
from dataclasses import KW_ONLY, dataclass
from datetime import datetime, timedelta
from typing import Protocol

from pydantic import BaseModel

from memory.callers import ConsolidationSource
from memory.models import Episode, Scope
from memory.text import shorten

logger = logging.getLogger(__name__)


class EpisodeSummarizer(Protocol):
    """Distils a batch of validated episodes of one person and scope into wisdom notes (the
    bot asks a model: :mod:`bot.assistant.lessons`); may raise, and the old notes stay."""

    async def summarize(self, episodes: list[Episode]) -> list[str]:
        """A few short, general notes; the caller bounds their number and length."""
        ...


class ConsolidationReport(BaseModel):
    """What one :meth:`Consolidator.consolidate` did."""

    scopes: int = 0
    """(scope, person) pairs whose notes were replaced."""
    notes: int = 0
    """Notes written in all."""
    skipped: int = 0
    """Pairs left as they were: the summarizer failed or produced no usable note."""


@dataclass(eq=False)
class Consolidator:
    """Replaces each (scope, person)'s wisdom notes with a summary of their recent episodes.

    Bounded, so a busy person costs no more than a quiet one: only pairs with an episode
    validated within ``lookback``, each from its ``max_episodes_per_scope`` most recent
    validated episodes of any age (the new notes replace the old ones and must not forget
    what they held); at most ``max_notes`` distinct notes of ``max_note_chars``. Notes are
    written for exactly the scope and person the episodes came from, so they obey the same
    partitions as recall. When the summarizer fails or returns nothing usable, the previous
    notes are kept.
    """

    store: ConsolidationSource
    summarizer: EpisodeSummarizer
    _: KW_ONLY
    lookback: timedelta
    max_episodes_per_scope: int = 30
    max_notes: int = 5
    max_note_chars: int = 300

    def __post_init__(self) -> None:
        if min(self.max_episodes_per_scope, self.max_notes) < 1 or self.max_note_chars < 2:
            raise ValueError("consolidation bounds must be positive")

    async def consolidate(self, *, now: datetime) -> ConsolidationReport:
        report = ConsolidationReport()
        recent = await self.store.scopes_with_recent_episodes(since=now - self.lookback)
        for scope, user_id in recent:
            written = await self._consolidate_one(scope, user_id, now=now)
            if written:
                report.scopes += 1
                report.notes += written
            else:
                report.skipped += 1
        return report

    async def _consolidate_one(self, scope: Scope, user_id: str, *, now: datetime) -> int:
        episodes = await self.store.list_episodes(
            user_id, scope=scope, limit=self.max_episodes_per_scope
        )
        if not episodes:
            return 0
        try:
            raw_notes = await self.summarizer.summarize(episodes)
        except Exception as error:
            # The error may quote people's words: log its class only.
            logger.warning(
                "summarizer failed (%s); keeping the previous notes", type(error).__name__
            )
            return 0
        notes = _clean_notes(raw_notes, max_notes=self.max_notes, max_chars=self.max_note_chars)
        if not notes:
            return 0
        written = await self.store.replace_wisdom(
            scope, user_id, notes, episode_count=len(episodes), at=now
        )
        return len(written)


def _clean_notes(raw: list[str], *, max_notes: int, max_chars: int) -> list[str]:
    """At most ``max_notes`` distinct non-empty notes of at most ``max_chars`` characters."""
    notes: list[str] = []
    for text in raw:
        note = shorten(text, max_chars)
        if note and note not in notes:
            notes.append(note)
        if len(notes) == max_notes:
            break
    return notes
