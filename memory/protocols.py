"""What the memory package needs from a language model, as three small protocols.

``memory/`` imports no LLM client: the bot supplies implementations (``bot.assistant.lessons``) and
tests supply plain objects. Every method may raise when the model fails or answers
nonsense; the callers (:mod:`memory.reflection`, :mod:`memory.consolidation`) keep the
votes and retry later rather than store a bad result.
"""

from __future__ import annotations

from typing import Protocol

from memory.models import Episode, EpisodeStatus

__all__ = ["EpisodeSummarizer", "FailureReflector", "ImportanceScorer"]


class FailureReflector(Protocol):
    """Turns an answer the person rejected (👎) into a lesson, after Reflexion (Shinn et al.)."""

    async def reflect(self, question: str, answer: str, *, reason: str | None = None) -> str:
        """Two or three sentences: what went wrong, and what to do instead next time;
        ``reason`` is what the person said went wrong, when they said."""
        ...


class ImportanceScorer(Protocol):
    """Rates how much a validated exchange is worth remembering, after Generative Agents."""

    async def score(self, question: str, answer: str, status: EpisodeStatus) -> int:
        """An integer from 1 (routine) to 10 (novel, critical, reusable)."""
        ...


class EpisodeSummarizer(Protocol):
    """Distils a batch of validated episodes of one person and scope into wisdom notes."""

    async def summarize(self, episodes: list[Episode]) -> list[str]:
        """A few short, general notes; the caller bounds their number and length."""
        ...
