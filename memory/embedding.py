"""Sentence vectors for semantic recall, from a static token table shipped with the package.

The model (``memory/embedding_model/``, built by ``scripts/build_embedding_model.py``) is
all-MiniLM-L6-v2 distilled by model2vec into one int8 row per token: a text's vector is
the mean of its tokens' rows, scaled to unit length, so a dot product is a cosine. A
query costs a tokenizer call and a small mean (well under a millisecond on one core): no
transformer, no torch, no network. When the model's files are missing, recall is lexical
only (:func:`default_embedder` returns None).
"""

from __future__ import annotations

import json
import logging
from functools import cache
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

logger = logging.getLogger(__name__)

MODEL_DIR = Path(__file__).resolve().parent / "embedding_model"

MAX_TOKENS = 512
"""Tokens of a text that count; the rest of a very long answer changes its vector little."""


class Embedder:
    """Text to unit vectors (float32) with a static token table."""

    def __init__(self, tokenizer: Tokenizer, table: np.ndarray, unk_token_id: int | None) -> None:
        self._tokenizer = tokenizer
        self._table = table.astype(np.float32)
        self._unk = unk_token_id

    @property
    def dimensions(self) -> int:
        return int(self._table.shape[1])

    def _known(self, ids: list[int]) -> list[int]:
        return [token for token in ids[:MAX_TOKENS] if token != self._unk]

    def _vector(self, ids: list[int]) -> np.ndarray:
        if not ids:
            return np.zeros(self.dimensions, dtype=np.float32)
        vector = self._table[ids].mean(axis=0)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else vector

    def embed(self, text: str) -> np.ndarray:
        """The text's unit vector; all zeros for a text with no known token."""
        return self._vector(self._known(self._tokenizer.encode(text, add_special_tokens=False).ids))

    def embed_many(self, texts: list[str]) -> list[np.ndarray]:
        """:meth:`embed` of each text, tokenized in one call."""
        encodings = self._tokenizer.encode_batch(texts, add_special_tokens=False)
        return [self._vector(self._known(encoding.ids)) for encoding in encodings]


def load_embedder(directory: Path) -> Embedder | None:
    """The model in ``directory``, or None (logged) when its files are missing or unreadable."""
    try:
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        table = np.load(directory / "tokens.npy")
    except (OSError, ValueError) as error:
        logger.warning("no embedding model (%s): recall is lexical only", type(error).__name__)
        return None
    return Embedder(tokenizer, table, config.get("unk_token_id"))


@cache
def default_embedder() -> Embedder | None:
    """The model shipped with the package, loaded once per process."""
    return load_embedder(MODEL_DIR)
