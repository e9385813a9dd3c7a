"""Memory values to render, built directly (the views never look anything up)."""

from __future__ import annotations

from memory import Episode, EpisodeStatus, Scope, WisdomNote
from tests.episodes import DM, T0, make_episode


def episode(
    id: int,
    question: str = "How do I deploy billing?",
    *,
    status: EpisodeStatus = EpisodeStatus.SUCCESS,
    answer: str = "Run make deploy.",
    lesson: str | None = None,
    scope: Scope = DM,
) -> Episode:
    return make_episode(
        question, answer, status, id=id, scope=scope, requester_id="U0ALICE", lesson=lesson
    )


def note(id: int, text: str = "Prefers runnable commands.", *, scope: Scope = DM) -> WisdomNote:
    return WisdomNote(
        id=id, scope=scope, user_id="U0ALICE", text=text, episode_count=3, created_at=T0
    )
