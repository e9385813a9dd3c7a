"""``recall_at_5``: a smoke test of recall on hand-written work conversations.

Written by the same hands that tuned recall, so it says little about what real people type:
``benchmarks/recall_public.py`` measures recall on a public corpus. This one checks that
nothing regresses on the bot's own kind of questions.

The evaluation set (``benchmarks/data/``, described in README.md) is 34 hand-written work
conversations (197 exchanges) and 20 unrelated one-off exchanges, all in one person's DM,
and 329 later questions, each labelled with the exchanges that answer it. The store is filled
through the public verbs (``record_exchange``, ``apply_vote``, ``set_lesson``) and every
question is recalled through :meth:`memory.MemoryStore.recall`. ``recall_at_5`` is the share
of the labelled exchanges found in the top 5, averaged over the held-out test questions;
``_dev`` figures are on the dev questions, the only ones used for tuning.

Baselines run in the same store, full-text only and ranked with recency and importance as
recall was before hybrid recall, with another MATCH or pool: ``baseline_and`` is the
question as typed (FTS5's implicit AND), ``baseline_or`` recall as it was before this
benchmark (the first 24 content words OR-ed, 4 candidates per result), ``wide_pool``
today's query with that wider pool of candidates, ``lexical`` today's query with one
candidate per result (full-text recall as it was before hybrid recall).

    python -m benchmarks.recall_quality [--misses]

``--misses`` lists the dev questions whose exchanges were not all recalled (never the
test questions: they stay unseen).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field, TypeAdapter
from sqlite_utils import Database

from benchmarks.harness import Figure, Target, percentile
from memory import (
    ConversationKind,
    HybridRecall,
    MemoryConfig,
    MemoryStore,
    RecallRequest,
    RecallWeights,
    Scope,
    open_store,
)
from memory.recall_query import ENGLISH_STOPWORDS, question_match
from memory.sql.recall import recall
from memory.sqlite.session import SQLiteSession, run_to_end
from memory.sqlite.store import connect
from tests.support.answers import record_answer

__all__ = [
    "FIGURES",
    "NAME",
    "EvalExchange",
    "EvalQuery",
    "load_exchanges",
    "load_queries",
    "run",
]

NAME = "recall_quality"
FIGURES = (
    "recall_at_5",
    "recall_at_5_dev",
    "recall_at_5_baseline_and",
    "recall_at_5_baseline_and_dev",
    "recall_at_5_baseline_or",
    "recall_at_5_baseline_or_dev",
    "recall_at_5_wide_pool",
    "recall_at_5_wide_pool_dev",
    "recall_at_5_lexical",
    "recall_at_5_lexical_dev",
    "recall_quality_latency_p50_ms",
    "recall_quality_latency_p99_ms",
)

DATA_DIR = Path(__file__).resolve().parent / "data"
EXCHANGES_FILE = DATA_DIR / "recall_exchanges.jsonl"
QUERIES_FILE = DATA_DIR / "recall_queries.jsonl"

TOP_K = 5
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
ASKED_AT = START + timedelta(days=100)
"""Every later question is asked after the last exchange (day 90) of the set."""
SCOPE = Scope(team_id="T0EVAL", channel_id="D0EVAL", kind=ConversationKind.DM)
PERSON = "U0EVAL"
LATENCY_ROUNDS = 5
QUICK_LATENCY_ROUNDS = 1


class EvalExchange(BaseModel):
    """A past exchange: what was asked, answered, voted, and (a failure) the lesson drawn."""

    id: str
    conversation: str
    day: int = Field(ge=0, le=90)
    vote: str = Field(pattern="^(up|down)$")
    question: str
    answer: str
    lesson: str | None = None


class EvalQuery(BaseModel):
    """A later question and the exchanges that answer it."""

    id: str
    split: str = Field(pattern="^(dev|test)$")
    relevant: list[str] = Field(min_length=1)
    text: str


_Line = TypeVar("_Line", EvalExchange, EvalQuery)


def _load_lines(path: Path, model: type[_Line]) -> list[_Line]:
    adapter = TypeAdapter(model)
    return [adapter.validate_json(line) for line in path.read_text().splitlines() if line]


def load_exchanges(path: Path = EXCHANGES_FILE) -> list[EvalExchange]:
    return _load_lines(path, EvalExchange)


def load_queries(path: Path = QUERIES_FILE) -> list[EvalQuery]:
    return _load_lines(path, EvalQuery)


async def _fill(store: MemoryStore, exchanges: Sequence[EvalExchange]) -> dict[int, str]:
    """Record and validate every exchange as its asker would; episode id -> exchange id."""
    labels: dict[int, str] = {}
    for index, exchange in enumerate(exchanges):
        at = START + timedelta(days=exchange.day, minutes=index)
        episode = await record_answer(
            store,
            SCOPE,
            PERSON,
            ts=f"{int(at.timestamp())}.{index:06d}",
            question=exchange.question,
            answer=exchange.answer,
            at=at,
            reaction="+1" if exchange.vote == "up" else "-1",
        )
        if exchange.lesson is not None:
            await store.set_lesson(episode.id, exchange.lesson)
        labels[episode.id] = exchange.id
    return labels


def _request(query: EvalQuery) -> RecallRequest:
    return RecallRequest(
        scope=SCOPE, requester_id=PERSON, text=query.text, limit=TOP_K, now=ASKED_AT
    )


def _hit_share(found: Sequence[str], relevant: Sequence[str]) -> float:
    return len(set(found) & set(relevant)) / len(relevant)


# -- baselines -----------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+")
_BASELINE_STOPWORDS = ENGLISH_STOPWORDS
"""The stopwords recall used before this benchmark (memory's, without chat's words)."""


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _in_partitions(partitions: Sequence[str], words: Sequence[str], joiner: str) -> str | None:
    """``words`` joined by ``joiner`` (" " is FTS5's implicit AND), in each partition."""
    if not words:
        return None
    return " OR ".join(
        "(" + joiner.join(_quoted(f"{partition}_{word}") for word in words) + ")"
        for partition in partitions
    )


def match_as_typed(question: str, partitions: Sequence[str]) -> str | None:
    """Every word of the question, as typed: FTS5's implicit AND."""
    return _in_partitions(partitions, _WORD.findall(question.lower()), " ")


def match_first_content_words(question: str, partitions: Sequence[str]) -> str | None:
    """The first 24 distinct content words OR-ed: recall's query before this benchmark."""
    terms: list[str] = []
    for word in _WORD.findall(question.lower()):
        if len(word) >= 2 and word not in _BASELINE_STOPWORDS and word not in terms:
            terms.append(word)
    return _in_partitions(partitions, terms[:24], " OR ")


MatchBuilder = Callable[[str, Sequence[str]], str | None]


PREVIOUS_CANDIDATES_PER_RESULT = 4
"""The candidate pool recall used before this benchmark: four per requested result."""


@dataclass(frozen=True)
class Variant:
    name: str
    match: MatchBuilder
    candidates_per_result: int


VARIANTS = (
    Variant("baseline_and", match_as_typed, PREVIOUS_CANDIDATES_PER_RESULT),
    Variant("baseline_or", match_first_content_words, PREVIOUS_CANDIDATES_PER_RESULT),
    Variant("wide_pool", question_match, PREVIOUS_CANDIDATES_PER_RESULT),
    Variant("lexical", question_match, 1),
)

FULL_TEXT_ONLY = MemoryConfig(
    hybrid=HybridRecall(semantic=0, context=0),
    weights=RecallWeights(recency=1.0, importance=1.0),
)
"""The baselines' settings: full-text recall ranked as it was before hybrid recall."""


# -- measuring -----------------------------------------------------------------------------


@dataclass
class Scores:
    """recall@5 of each query, by query id."""

    by_query: dict[str, float]

    def mean(self, queries: Sequence[EvalQuery], split: str) -> float:
        return statistics.fmean(self.by_query[q.id] for q in queries if q.split == split)


@dataclass
class Measured:
    recall: Scores
    latencies_ms: list[float]
    variants: dict[str, Scores]
    found: dict[str, list[str]]
    episodes: int


async def _through_store(
    path: Path, exchanges: Sequence[EvalExchange], queries: Sequence[EvalQuery], rounds: int
) -> tuple[dict[int, str], Scores, list[float], dict[str, list[str]]]:
    store = await open_store(str(path), MemoryConfig())
    try:
        labels = await _fill(store, exchanges)
        by_query: dict[str, float] = {}
        found: dict[str, list[str]] = {}
        latencies: list[float] = []
        for query in queries:  # also warms the caches up before the timed rounds
            recalled = await store.recall(_request(query))
            found[query.id] = [labels[item.episode.id] for item in recalled]
            by_query[query.id] = _hit_share(found[query.id], query.relevant)
        for _ in range(rounds):
            for query in queries:
                started = time.perf_counter()
                await store.recall(_request(query))
                latencies.append((time.perf_counter() - started) * 1000)
        return labels, Scores(by_query), latencies, found
    finally:
        await store.close()


class _VariantSession(SQLiteSession):
    """SQLite's session with the variant's full-text query."""

    def __init__(self, db: Database, match: MatchBuilder) -> None:
        super().__init__(db)
        self._match = match

    def full_text_match(self, question: str, keys: Sequence[str]) -> str | None:
        return self._match(question, keys)


def _variant_scores(
    path: Path, labels: dict[int, str], queries: Sequence[EvalQuery], variant: Variant
) -> Scores:
    db = connect(path)
    pool = FULL_TEXT_ONLY.hybrid.model_copy(
        update={"candidates_per_result": variant.candidates_per_result}
    )
    config = FULL_TEXT_ONLY.model_copy(update={"hybrid": pool})
    session = _VariantSession(db, variant.match)
    try:
        by_query = {}
        for query in queries:
            recalled = run_to_end(recall(session, _request(query), config))
            found = [labels[item.episode.id] for item in recalled]
            by_query[query.id] = _hit_share(found, query.relevant)
        return Scores(by_query)
    finally:
        db.close()


def measure(quick: bool) -> tuple[list[EvalQuery], Measured]:
    """Every question recalled once for recall@5, then ``rounds`` more times for latency."""
    exchanges = load_exchanges()
    queries = load_queries()
    rounds = QUICK_LATENCY_ROUNDS if quick else LATENCY_ROUNDS
    with tempfile.TemporaryDirectory(prefix="recall-quality-") as directory:
        path = Path(directory) / "eval.db"
        labels, scores, latencies, found = asyncio.run(
            _through_store(path, exchanges, queries, rounds)
        )
        variants = {v.name: _variant_scores(path, labels, queries, v) for v in VARIANTS}
    return queries, Measured(scores, latencies, variants, found, len(exchanges))


def _share_figures(name: str, scores: Scores, queries: Sequence[EvalQuery]) -> list[Figure]:
    counts = {split: sum(q.split == split for q in queries) for split in ("dev", "test")}
    return [
        Figure(
            name=name,
            value=round(scores.mean(queries, "test"), 3),
            unit="share",
            detail=f"held-out test split, {counts['test']} questions",
        ),
        Figure(
            name=f"{name}_dev",
            value=round(scores.mean(queries, "dev"), 3),
            unit="share",
            detail=f"dev split (tuned on), {counts['dev']} questions",
        ),
    ]


def run(quick: bool) -> list[Figure]:
    return figures_of(*measure(quick))


def figures_of(queries: Sequence[EvalQuery], measured: Measured) -> list[Figure]:
    figures = _share_figures("recall_at_5", measured.recall, queries)
    for variant in VARIANTS:
        figures += _share_figures(
            f"recall_at_5_{variant.name}", measured.variants[variant.name], queries
        )
    samples = len(measured.latencies_ms)
    figures += [
        Figure(
            name="recall_quality_latency_p50_ms",
            value=round(percentile(measured.latencies_ms, 0.5), 2),
            unit="ms",
            detail=f"{samples} recalls in a {measured.episodes}-episode scope",
        ),
        Figure(
            name="recall_quality_latency_p99_ms",
            value=round(percentile(measured.latencies_ms, 0.99), 2),
            unit="ms",
            detail=f"{samples} recalls",
            target=Target.at_most(5),
        ),
    ]
    return figures


def _print_misses(queries: Sequence[EvalQuery], measured: Measured) -> None:
    exchanges = {exchange.id: exchange for exchange in load_exchanges()}
    for query in queries:
        if query.split != "dev" or measured.recall.by_query[query.id] == 1.0:
            continue
        print(f"\n{query.id}: {query.text}", file=sys.stderr)
        for label in query.relevant:
            print(f"  want {label}: {exchanges[label].question[:90]}", file=sys.stderr)
        print(f"  got  {', '.join(measured.found[query.id]) or '-'}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one latency round only")
    parser.add_argument("--misses", action="store_true", help="list the dev questions missed")
    args = parser.parse_args(argv)
    queries, measured = measure(args.quick)
    if args.misses:
        _print_misses(queries, measured)
    for figure in figures_of(queries, measured):
        print(figure.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
