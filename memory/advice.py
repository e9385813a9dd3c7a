"""Advice for a new question from the person's past validated experience in this scope:
how similar questions went (what was rejected and why, what was approved) and the scope's
wisdom notes, put in front of the model."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from memory.callers import Recall
from memory.models import Episode, EpisodeStatus, RecalledEpisode, Scope, WisdomNote


class Advice(BaseModel):
    """Validated past experience relevant to one question (the bot renders it into the
    prompt: :func:`bot.assistant.prompt.render_experience`)."""

    failures: list[Episode] = Field(default_factory=list)
    """Similar exchanges the person rejected (👎), most relevant first, with lessons if drawn."""
    successes: list[Episode] = Field(default_factory=list)
    """Similar exchanges the person approved (👍), most relevant first."""
    wisdom: list[WisdomNote] = Field(default_factory=list)
    """Notes consolidated from the person's episodes in this scope."""


class PlanAdvisor:
    """Builds :class:`Advice` from recalled episodes and the scope's wisdom notes.

    Recall already keeps to what the person may see in the scope; the advisor applies
    :mod:`memory.privacy` again, so a backend bug cannot turn a pending exchange, someone
    else's failure or note, into advice.
    """

    def __init__(self, store: Recall) -> None:
        self._store = store

    async def advice_from(
        self, scope: Scope, user_id: str, recalled: Sequence[RecalledEpisode]
    ) -> Advice | None:
        """Advice from episodes the caller recalled, plus the scope's wisdom notes; None
        when nothing is left."""
        visibility = self._store.visibility
        episodes = [
            item.episode
            for item in recalled
            if visibility.may_see(item.episode, viewer_id=user_id, scope=scope)
        ]
        wisdom = [
            note
            for note in await self._store.wisdom(scope, user_id)
            if visibility.may_see_note(note, viewer_id=user_id, scope=scope)
        ]
        advice = Advice(
            failures=[episode for episode in episodes if episode.status is EpisodeStatus.FAILURE],
            successes=[episode for episode in episodes if episode.status is EpisodeStatus.SUCCESS],
            wisdom=wisdom,
        )
        if not (advice.failures or advice.successes or advice.wisdom):
            return None
        return advice
