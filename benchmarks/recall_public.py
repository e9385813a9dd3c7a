"""``public_*``, ``locomo_*``: recall on public corpora of long conversations, lexical,
dense and hybrid side by side.

Two corpora (:mod:`benchmarks.public_corpora`, where they come from and how they are
split): MemoryBank (``public_*``: 15 people, 99 questions, the words of a question mostly
those of its evidence) and LoCoMo (``locomo_*``: 10 very long conversations, 1,536
questions, many needing words nobody said, or turns of several sessions). Each has a
**tune** split, the only one looked at while choosing settings, and a **report** split.

Every exchange is stored as a validated success of its person, in their own DM, with its
own time, through :meth:`memory.MemoryStore.import_episodes`; every question is asked
through :meth:`memory.MemoryStore.recall` (``limit`` 5, the default token budget) after
the last exchange. ``R@k`` is the share of a question's evidence exchanges in the top k,
averaged over the questions; ``hit@5`` the share of questions with at least one in the
top 5; latencies are those of the limit-5 recalls, in wall time (``p50_ms``, ``p99_ms``) and
in the CPU time of the whole process (``cpu_*``: the store's database thread and the event
loop, all this process does meanwhile), which a machine shared with other work inflates far
less. LoCoMo's R@5 is also given per
category of question (``locomo_r_at_5_<category>_<variant>``). Four settings of the same
store:

- ``lexical``: full-text recall alone (``HybridRecall(semantic=0)``), as before hybrid;
- ``dense``: semantic recall alone (``semantic=1``);
- ``hybrid``: the default (weighted normalised-score fusion);
- ``rrf``: the same candidates fused by reciprocal rank.

    python -m benchmarks.recall_public [--corpus memorybank|locomo] [--split tune|report]
        [--misses]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from benchmarks.harness import Figure, percentile
from benchmarks.public_corpora import (
    CORPORA,
    LOCOMO_CATEGORIES,
    SPLITS,
    Corpus,
    Question,
    load,
)
from memory import (
    ConversationKind,
    EpisodeStatus,
    Fusion,
    HybridRecall,
    ImportedEpisode,
    MemoryConfig,
    RecallRequest,
    Scope,
    open_store,
)

__all__ = ["FIGURES", "NAME", "VARIANTS", "Score", "figures_of", "measure", "run"]

NAME = "recall_public"
PREFIXES = {"memorybank": "public", "locomo": "locomo"}
"""Each corpus's figures start with this (MemoryBank's kept their first name)."""

VARIANTS: dict[str, HybridRecall] = {
    "lexical": HybridRecall(semantic=0),
    "dense": HybridRecall(semantic=1),
    "hybrid": HybridRecall(),
    "rrf": HybridRecall(fusion=Fusion.RRF),
}
METRICS = ("r_at_5", "hit_at_5", "r_at_10", "p50_ms", "p99_ms", "cpu_p50_ms", "cpu_p99_ms")


def _suffix(split: str) -> str:
    return "" if split == "report" else "_tune"


FIGURES = tuple(
    f"{PREFIXES[corpus]}_{metric}_{variant}{_suffix(split)}"
    for corpus in CORPORA
    for split in SPLITS
    for variant in VARIANTS
    for metric in METRICS
) + tuple(
    f"locomo_r_at_5_{category}_{variant}{_suffix(split)}"
    for split in SPLITS
    for variant in VARIANTS
    for category in LOCOMO_CATEGORIES.values()
)


class Score(BaseModel):
    """One variant's figures on one split."""

    questions: int
    r_at_5: float
    hit_at_5: float
    r_at_10: float
    p50_ms: float
    p99_ms: float
    cpu_p50_ms: float
    cpu_p99_ms: float
    r_at_5_by_category: dict[str, float]
    questions_by_category: dict[str, int]
    misses: list[str]


def _user(person: str) -> str:
    return "U" + "".join(char for char in person.upper() if char.isalnum())


def _scope(person: str) -> Scope:
    """The person's DM with the bot."""
    return Scope(team_id="T0PUBLIC", channel_id="D" + _user(person)[1:], kind=ConversationKind.DM)


async def _fill(path: Path, corpus: Corpus) -> dict[int, str]:
    """Import every exchange; the label (``person/label``) of each episode id."""
    labels: dict[int, str] = {}
    store = await open_store(str(path), MemoryConfig())
    try:
        for person, exchanges in corpus.histories.items():
            ids = await store.import_episodes(
                [
                    ImportedEpisode(
                        scope=_scope(person),
                        requester_id=_user(person),
                        question=exchange.question,
                        answer=exchange.answer,
                        status=EpisodeStatus.SUCCESS,
                        created_at=exchange.at,
                        validated_at=exchange.at,
                    )
                    for exchange in exchanges
                ]
            )
            for exchange, episode_id in zip(exchanges, ids, strict=True):
                assert episode_id is not None
                labels[episode_id] = f"{person}/{exchange.label}"
    finally:
        await store.close()
    return labels


async def _score(
    path: Path, labels: dict[int, str], corpus: Corpus, split: str, hybrid: HybridRecall
) -> Score:
    questions = [question for question in corpus.questions if question.split == split]
    store = await open_store(str(path), MemoryConfig(hybrid=hybrid))
    at_5: list[float] = []
    hits: list[float] = []
    at_10: list[float] = []
    timings: list[float] = []
    cpu: list[float] = []
    misses: list[str] = []
    try:
        for question in questions:
            wanted = {f"{question.person}/{label}" for label in question.evidence}
            found = []
            for limit in (5, 10):
                request = RecallRequest(
                    scope=_scope(question.person),
                    requester_id=_user(question.person),
                    text=question.question,
                    limit=limit,
                    now=corpus.asked_at,
                )
                started, cpu_started = time.perf_counter(), time.process_time()
                recalled = await store.recall(request)
                if limit == 5:
                    timings.append((time.perf_counter() - started) * 1000)
                    cpu.append((time.process_time() - cpu_started) * 1000)
                found.append({labels[item.episode.id] for item in recalled})
            at_5.append(len(wanted & found[0]) / len(wanted))
            hits.append(1.0 if wanted & found[0] else 0.0)
            at_10.append(len(wanted & found[1]) / len(wanted))
            if at_5[-1] < 1:
                misses.append(f"{question.person}: {question.question}")
    finally:
        await store.close()
    return Score(
        questions=len(questions),
        r_at_5=statistics.fmean(at_5),
        hit_at_5=statistics.fmean(hits),
        r_at_10=statistics.fmean(at_10),
        p50_ms=percentile(timings, 0.5),
        p99_ms=percentile(timings, 0.99),
        cpu_p50_ms=percentile(cpu, 0.5),
        cpu_p99_ms=percentile(cpu, 0.99),
        r_at_5_by_category=_by_category(questions, at_5),
        questions_by_category=Counter(q.category for q in questions if q.category),
        misses=misses,
    )


def _by_category(questions: list[Question], at_5: list[float]) -> dict[str, float]:
    shares: dict[str, list[float]] = {}
    for question, share in zip(questions, at_5, strict=True):
        if question.category:
            shares.setdefault(question.category, []).append(share)
    return {category: statistics.fmean(values) for category, values in shares.items()}


async def measure(
    workdir: Path,
    corpus: Corpus,
    variants: dict[str, HybridRecall] = VARIANTS,
    splits: tuple[str, ...] = SPLITS,
) -> dict[tuple[str, str], Score]:
    """Each variant's score on each split, by (split, variant)."""
    path = workdir / f"{corpus.name}.db"
    labels = await _fill(path, corpus)
    return {
        (split, variant): await _score(path, labels, corpus, split, hybrid)
        for split in splits
        for variant, hybrid in variants.items()
    }


def figures_of(corpus: str, scores: dict[tuple[str, str], Score]) -> list[Figure]:
    prefix = PREFIXES[corpus]
    figures = []
    for (split, variant), score in scores.items():
        suffix = _suffix(split)
        detail = f"{corpus} {split} split, {score.questions} questions"
        for metric in ("r_at_5", "hit_at_5", "r_at_10"):
            figures.append(
                Figure(
                    name=f"{prefix}_{metric}_{variant}{suffix}",
                    value=getattr(score, metric),
                    unit="share",
                    detail=detail,
                )
            )
        for metric in ("p50_ms", "p99_ms", "cpu_p50_ms", "cpu_p99_ms"):
            figures.append(
                Figure(
                    name=f"{prefix}_{metric}_{variant}{suffix}",
                    value=getattr(score, metric),
                    unit="ms",
                    detail=f"{detail}, recall limit 5",
                )
            )
        for category, value in score.r_at_5_by_category.items():
            figures.append(
                Figure(
                    name=f"{prefix}_r_at_5_{category}_{variant}{suffix}",
                    value=value,
                    unit="share",
                    detail=f"{corpus} {split} split,"
                    f" {score.questions_by_category[category]} {category} questions",
                )
            )
    return figures


def run(quick: bool) -> list[Figure]:
    del quick  # the corpora are small enough: always measured whole
    figures = []
    for name in CORPORA:
        with tempfile.TemporaryDirectory() as workdir:
            figures += figures_of(name, asyncio.run(measure(Path(workdir), load(name))))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=tuple(CORPORA), default="locomo")
    parser.add_argument("--split", choices=SPLITS, default="tune")
    parser.add_argument("--misses", action="store_true", help="list the split's misses")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        scores = asyncio.run(measure(Path(workdir), load(args.corpus), splits=(args.split,)))
    categories = list(LOCOMO_CATEGORIES.values()) if args.corpus == "locomo" else []
    print(
        f"{'variant':8} {'R@5':>6} {'hit@5':>6} {'R@10':>6} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'cpu p50':>7} {'cpu p99':>7}" + "".join(f" {category:>11}" for category in categories)
    )
    for (_, variant), score in scores.items():
        print(
            f"{variant:8} {score.r_at_5:6.3f} {score.hit_at_5:6.3f} {score.r_at_10:6.3f}"
            f" {score.p50_ms:7.2f} {score.p99_ms:7.2f}"
            f" {score.cpu_p50_ms:7.2f} {score.cpu_p99_ms:7.2f}"
            + "".join(f" {score.r_at_5_by_category[c]:11.3f}" for c in categories)
        )
        if args.misses:
            for miss in score.misses:
                print(f"    miss: {miss}")


if __name__ == "__main__":
    main()
