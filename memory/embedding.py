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
from itertools import chain
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

    def embed(self, text: str) -> np.ndarray:
        """The text's unit vector; all zeros for a text with no known token. A text alone
        (recall's question) is averaged directly, in fewer numpy calls than
        :meth:`embed_many` takes for one, and in recall's order of sums: a batch's differ in
        the last bits, and so would every recall's scores."""
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        ids = [token for token in encoding.ids[:MAX_TOKENS] if token != self._unk]
        if not ids:
            return np.zeros(self.dimensions, dtype=np.float32)
        vector = self._table[ids].mean(axis=0)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else vector

    def embed_many(self, texts: list[str]) -> np.ndarray:
        """:meth:`embed` of each text, a row each: tokenized in one call, and the rows'
        means and lengths taken together (per text, numpy's calls cost more than its
        arithmetic)."""
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
