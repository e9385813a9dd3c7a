"""The full-text index of validated episodes: the only place recall looks."""

from __future__ import annotations

from collections.abc import Iterable

from sqlite_utils import Database

from memory.models import ConversationKind, EpisodeStatus, Scope
from memory.sqlite.codec import episode_from_row
from memory.sqlite.scope_tokens import channel_token, personal_token

__all__ = ["BM25_WEIGHTS", "reindex_episode", "rewrite_index", "unindex_episodes"]

BM25_WEIGHTS = "0.0, 2.0, 1.0, 1.0"
"""bm25() column weights: scope tokens never add relevance; a matching question counts most."""


def unindex_episodes(db: Database, episode_ids: Iterable[int]) -> None:
    for episode_id in episode_ids:
        db.execute("DELETE FROM episodes_fts WHERE rowid = ?", [episode_id])


def _scope_tokens(scope: Scope, requester_id: str, status: EpisodeStatus) -> str:
    tokens = [personal_token(scope, requester_id)]
    if status is EpisodeStatus.SUCCESS and scope.kind is ConversationKind.CHANNEL:
        tokens.append(channel_token(scope))
    return " ".join(tokens)


def reindex_episode(db: Database, episode_id: int) -> None:
    """Make the index agree with the episode: indexed exactly while it is validated."""
    unindex_episodes(db, [episode_id])
    rows = list(db.query("SELECT * FROM episodes WHERE id = ?", [episode_id]))
    if not rows:
        return
    episode = episode_from_row(rows[0])
    if episode.status is EpisodeStatus.PENDING:
        return
    db.execute(
        "INSERT INTO episodes_fts (rowid, scope, question, answer, lesson) VALUES (?, ?, ?, ?, ?)",
        [
            episode.id,
            _scope_tokens(episode.scope, episode.requester_id, episode.status),
            episode.question,
            episode.answer,
            episode.lesson or "",
        ],
    )


def rewrite_index(db: Database) -> None:
    """Merge the index into one fresh segment, so no old segment keeps deleted text."""
    db.execute("INSERT INTO episodes_fts (episodes_fts) VALUES ('optimize')")
