"""What an episode's vector says, how it is stored, and the nearest ones to a question.

Independent of the backend: both keep one row per validated episode and partition (as the
full-text index does), the vector as :func:`to_bytes` packs it (128 int8 components of the
unit vector, 128 bytes), and search one partition by brute force (:func:`nearest`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memory.embedding import default_embedder
from memory.models import Episode
from memory.recall_query import date_words

SCALE = 127
"""A unit vector's components times this, rounded, fit int8 with little loss of cosine."""


def episode_text(episode: Episode) -> str:
    """What the vector of a validated episode embeds: the question, answer and lesson,
    and the day it was asked (:func:`memory.recall_query.date_words`)."""
    parts = (date_words(episode.created_at), episode.question, episode.answer, episode.lesson)
    return "\n".join(part for part in parts if part)


def episode_vectors(episodes: Sequence[Episode]) -> list[bytes | None]:
    """Each validated episode's vector as stored, embedded together (one tokenizer call);
    None without a model (recall is then full-text only)."""
    embedder = default_embedder()
    if embedder is None:
        return [None] * len(episodes)
    packed = _packed(embedder.embed_many([episode_text(e) for e in episodes]))
    return [row.tobytes() for row in packed]


def _packed(vectors: np.ndarray) -> np.ndarray:
    return np.clip(np.round(vectors * SCALE), -SCALE, SCALE).astype(np.int8)


def to_bytes(vector: np.ndarray) -> bytes:
    return _packed(vector).tobytes()


def from_bytes(vectors: bytes, dimensions: int) -> np.ndarray:
    """Stored vectors, one after the other, as one float32 matrix, a row each, back to
    unit length."""
    rows = np.frombuffer(vectors, dtype=np.int8).reshape(-1, dimensions).astype(np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.maximum(norms, 1e-9)


def nearest(text: str, ids: Sequence[int], vectors: bytes) -> dict[int, float]:
    """The cosine of the text's vector with each stored vector (``vectors``, one after the
    other), by episode id (an episode stored in two partitions counts at its best); nothing
    without a model."""
    embedder = default_embedder()
    if embedder is None:
        return {}
    cosines = from_bytes(vectors, embedder.dimensions) @ embedder.embed(text)
    found = dict(zip(ids, cosines.tolist(), strict=True))
    if len(found) < len(ids):  # held twice (SQLite's channel partitions): read one by one
        found = {}
        for episode_id, cosine in zip(ids, cosines.tolist(), strict=True):
            found[episode_id] = max(cosine, found.get(episode_id, -1.0))
    return found


def most_similar(cosines: dict[int, float], count: int, *, floor: float) -> list[int]:
    """The ids of the ``count`` most similar episodes whose cosine reaches ``floor``."""
    kept = [episode_id for episode_id, cosine in cosines.items() if cosine >= floor]
    kept.sort(key=lambda episode_id: (-cosines[episode_id], -episode_id))
    return kept[:count]
