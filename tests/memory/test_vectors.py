"""The static embedding model shipped with the package, and vectors as stored."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from memory.vectors import MODEL_DIR, default_embedder, from_bytes, load_embedder, to_bytes


def test_the_model_ships_with_the_package_and_embeds_to_unit_vectors() -> None:
    embedder = default_embedder()
    assert embedder is not None
    vector = embedder.embed("How do I rotate the staging password?")
    assert vector.shape == (embedder.dimensions,)
    assert abs(float(np.linalg.norm(vector)) - 1) < 1e-5


def test_related_texts_are_closer_than_unrelated_ones() -> None:
    embedder = default_embedder()
    assert embedder is not None
    question = embedder.embed("what can my new pet eat")
    related = embedder.embed("What should I feed my puppy?")
    unrelated = embedder.embed("The nightly Postgres backup job failed")
    assert question @ related > 0.4 > question @ unrelated


def test_a_text_without_a_known_token_embeds_to_zeros() -> None:
    embedder = default_embedder()
    assert embedder is not None
    assert not embedder.embed("").any()


def test_texts_embedded_together_embed_as_they_do_alone() -> None:
    embedder = default_embedder()
    assert embedder is not None
    texts = ["How do I rotate the staging password?", "", "word " * 2000, "What should I feed it?"]
    together = embedder.embed_many(texts)
    assert len(together) == len(texts)
    for text, vector in zip(texts, together, strict=True):
        assert np.array_equal(vector, embedder.embed(text))


def test_a_missing_model_is_no_model(tmp_path: Path) -> None:
    assert load_embedder(tmp_path / "nowhere") is None
    assert load_embedder(MODEL_DIR) is not None


def test_stored_vectors_keep_their_cosines() -> None:
    embedder = default_embedder()
    assert embedder is not None
    texts = ["the VPN drops", "my remote connection to the office keeps failing", "lunch?"]
    vectors = np.stack([embedder.embed(text) for text in texts])
    restored = from_bytes(b"".join(to_bytes(vector) for vector in vectors), embedder.dimensions)
    assert np.abs(restored @ vectors[0] - vectors @ vectors[0]).max() < 0.02
