"""Sentence vectors for semantic recall: the model, how a vector is stored, the nearest ones
(memory/README.md, *Vectors*)."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from functools import cache
from itertools import chain
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from memory.models import Episode
from memory.recall_query import date_words

logger = logging.getLogger(__name__)

MODEL_DIR = Path(__file__).resolve().parent / "embedding_model"
MAX_TOKENS = 512
"""Tokens of a text that count; the rest of a very long answer changes its vector little."""
SCALE = 127
"""A unit vector's components times this, rounded, fit int8 with little loss of cosine."""


class Embedder:
    """Text to unit vectors (float32) with a static token table."""

    def __init__(self, tokenizer: Tokenizer, table: np.ndarray, unk_token_id: int | None) -> None:
        self._tokenizer = tokenizer
        self._table = table.astype(np.float32)
        self._unk = unk_token_id

    @property
    def dimensions(self) -> int:
        return int(self._table.shape[1])

    def embed(self, text: str) -> np.ndarray:
        """The text's unit vector; all zeros for a text with no known token. Not
        :meth:`embed_many` of one text: fewer numpy calls, and recall's order of sums (a
        batch's differ in the last bits, and so would every recall's scores)."""
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        ids = [token for token in encoding.ids[:MAX_TOKENS] if token != self._unk]
        if not ids:
            return np.zeros(self.dimensions, dtype=np.float32)
        vector = self._table[ids].mean(axis=0)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else vector

    def embed_many(self, texts: list[str]) -> np.ndarray:
        """:meth:`embed` of each text, a row each, in one tokenizer call and numpy's calls
        over all rows together (per text, the calls cost more than the arithmetic)."""
        encodings = self._tokenizer.encode_batch_fast(texts, add_special_tokens=False)
        known = [[token for token in e.ids[:MAX_TOKENS] if token != self._unk] for e in encodings]
        counts = np.array([len(ids) for ids in known], dtype=np.intp)
        vectors = np.zeros((len(known), self.dimensions), dtype=np.float32)
        some = counts > 0
        if some.any():
            tokens = np.fromiter(chain.from_iterable(known), dtype=np.intp, count=counts.sum())
            starts = np.cumsum(counts)[some] - counts[some]
            sums = np.add.reduceat(self._table[tokens], starts, axis=0)
            means = sums / counts[some, None].astype(np.float32)
            norms = np.linalg.norm(means, axis=1, keepdims=True)
            vectors[some] = np.divide(means, norms, out=means, where=norms > 0)
        return vectors


def load_embedder(directory: Path) -> Embedder | None:
    """The model in ``directory``, or None (logged) when its files are missing or unreadable."""
    try:
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        # Tokens past MAX_TOKENS are dropped after tokenizing anyway, and nothing is padded:
        # the model's own settings only cost time.
        tokenizer.no_truncation()
        tokenizer.no_padding()
        table = np.load(directory / "tokens.npy")
    except (OSError, ValueError) as error:
        logger.warning("no embedding model (%s): recall is lexical only", type(error).__name__)
        return None
    return Embedder(tokenizer, table, config.get("unk_token_id"))


@cache
def default_embedder() -> Embedder | None:
    """The model shipped with the package, loaded once per process."""
    return load_embedder(MODEL_DIR)


def episode_text(episode: Episode) -> str:
    """What a validated episode's vector embeds: the day it was asked (as
    :func:`memory.recall_query.date_words` names it), the question, answer and lesson."""
    parts = (date_words(episode.created_at), episode.question, episode.answer, episode.lesson)
    return "\n".join(part for part in parts if part)


def episode_vectors(episodes: Sequence[Episode]) -> list[bytes | None]:
    """Each validated episode's vector as stored; None without a model."""
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
    """Stored vectors, one after the other, as a float32 matrix of unit rows."""
    rows = np.frombuffer(vectors, dtype=np.int8).reshape(-1, dimensions).astype(np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.maximum(norms, 1e-9)


def nearest(text: str, ids: Sequence[int], vectors: bytes) -> dict[int, float]:
    """The cosine of the text's vector with each of ``vectors`` (stored one after the other)
    by episode id, one stored in two partitions at its best; nothing without a model."""
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
