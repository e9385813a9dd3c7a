"""The recall quality set is well formed: its labels exist, and dev never sees test."""

from __future__ import annotations

from collections import defaultdict

from benchmarks.recall_quality import load_exchanges, load_queries


def test_ids_are_unique_and_every_label_names_an_exchange() -> None:
    exchanges = load_exchanges()
    queries = load_queries()
    exchange_ids = [exchange.id for exchange in exchanges]
    assert len(exchange_ids) == len(set(exchange_ids))
    assert len({query.id for query in queries}) == len(queries)
    for query in queries:
        assert set(query.relevant) <= set(exchange_ids), query.id


def test_no_conversation_is_asked_about_in_both_splits() -> None:
    conversation_of = {exchange.id: exchange.conversation for exchange in load_exchanges()}
    splits: dict[str, set[str]] = defaultdict(set)
    for query in load_queries():
        for label in query.relevant:
            splits[conversation_of[label]].add(query.split)
    assert splits
    assert all(len(seen) == 1 for seen in splits.values()), splits


def test_failures_carry_their_lesson_and_successes_none() -> None:
    for exchange in load_exchanges():
        assert (exchange.vote == "down") == (exchange.lesson is not None), exchange.id
