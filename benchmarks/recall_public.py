"""``public_*``: recall on a public corpus of long conversations, lexical, dense and hybrid.

The corpus is MemoryBank-SiliconFriend's English evaluation set (``eval_data/en``, MIT,
vendored in ``benchmarks/data/memorybank/`` from commit cf61c41 of
github.com/zhongwanjun/MemoryBank-SiliconFriend): 15 people, each chatting with an AI
companion over 10 days (735 exchanges in all), then asked 100 probing questions about those
days. The questions come without evidence labels: the exchanges that answer each one were
labelled by hand for this benchmark (``evidence_en.jsonl``; one question, whose day is not
in the history, has none and is left out). The people are split in two: the first seven
(48 labelled questions) are the **tune** split, the only one looked at while choosing
settings; the other eight (51 questions) the **report** split.

Every exchange is stored as a validated success of its person, in their own DM, with its
own time, through :meth:`memory.MemoryStore.import_episodes`; every question is asked
through :meth:`memory.MemoryStore.recall` (``limit`` 5, the default token budget) a day
after the last exchange. ``R@k`` is the share of a question's evidence exchanges in the
top k, averaged over the questions; ``hit@5`` the share of questions with at least one in
the top 5; latencies are those of the limit-5 recalls. Four settings of the same store:

- ``lexical``: full-text recall alone (``HybridRecall(semantic=0)``), as before hybrid;
- ``dense``: semantic recall alone (``semantic=1``);
- ``hybrid``: the default (weighted normalised-score fusion);
- ``rrf``: the same candidates fused by reciprocal rank.

    python benchmarks/recall_public.py [--split tune|report] [--misses]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make the project importable
    sys.path.insert(0, str(ROOT))

from benchmarks.harness import Figure, percentile  # noqa: E402
from memory import (  # noqa: E402
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

__all__ = ["FIGURES", "NAME", "VARIANTS", "Question", "Score", "measure", "run"]

NAME = "recall_public"
DATA = ROOT / "benchmarks" / "data" / "memorybank"
SPLITS = ("report", "tune")

VARIANTS: dict[str, HybridRecall] = {
    "lexical": HybridRecall(semantic=0),
    "dense": HybridRecall(semantic=1),
    "hybrid": HybridRecall(),
    "rrf": HybridRecall(fusion=Fusion.RRF),
}

FIGURES = tuple(
    f"public_{metric}_{variant}{'' if split == 'report' else '_tune'}"
    for split in SPLITS
    for variant in VARIANTS
    for metric in ("r_at_5", "hit_at_5", "r_at_10", "p50_ms", "p99_ms")
)


class Question(BaseModel):
    person: str
    question: str
    evidence: list[str]
    split: str


class Score(BaseModel):
    """One variant's figures on one split."""

    r_at_5: float
    hit_at_5: float
    r_at_10: float
    p50_ms: float
    p99_ms: float
    misses: list[str]


def _user(person: str) -> str:
    return "U" + "".join(char for char in person.upper() if char.isalnum())


def _scope(person: str) -> Scope:
    """The person's DM with the bot."""
    return Scope(team_id="T0MEMBANK", channel_id="D" + _user(person)[1:], kind=ConversationKind.DM)


def load() -> tuple[dict[str, dict[str, list[dict[str, str]]]], list[Question]]:
    """Each person's history (day -> exchanges) and the labelled questions."""
    raw = json.loads((DATA / "memory_bank_en.json").read_text(encoding="utf-8"))
    histories = {name.strip(): person["history"] for name, person in raw.items()}
    lines = (DATA / "evidence_en.jsonl").read_text(encoding="utf-8").splitlines()
    questions = [Question.model_validate_json(line) for line in lines]
    return histories, [question for question in questions if question.evidence]


def _when(day: str, index: int) -> datetime:
    return datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC) + timedelta(minutes=index)


async def _fill(
    path: Path, histories: dict[str, dict[str, list[dict[str, str]]]]
) -> dict[int, str]:
    """Import every exchange; the label (``day#index``, with its person) of each episode id."""
    labels: dict[int, str] = {}
    store = await open_store(str(path), MemoryConfig())
    try:
        for person, days in histories.items():
            turns = [
                (f"{day}#{index}", _when(day, index), turn)
                for day, exchanges in days.items()
                for index, turn in enumerate(exchanges)
            ]
            ids = await store.import_episodes(
                [
                    ImportedEpisode(
                        scope=_scope(person),
                        requester_id=_user(person),
                        question=turn["query"],
                        answer=turn["response"],
                        status=EpisodeStatus.SUCCESS,
                        created_at=when,
                        validated_at=when,
                    )
                    for _, when, turn in turns
                ]
            )
            for (label, _, _), episode_id in zip(turns, ids, strict=True):
                assert episode_id is not None
                labels[episode_id] = f"{person}/{label}"
    finally:
        await store.close()
    return labels


async def _score(
    path: Path,
    labels: dict[int, str],
    questions: list[Question],
    now: datetime,
    hybrid: HybridRecall,
) -> Score:
    store = await open_store(str(path), MemoryConfig(hybrid=hybrid))
    at_5: list[float] = []
    hits: list[float] = []
    at_10: list[float] = []
    timings: list[float] = []
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
                    now=now,
                )
                started = time.perf_counter()
                recalled = await store.recall(request)
                if limit == 5:
                    timings.append((time.perf_counter() - started) * 1000)
                found.append({labels[item.episode.id] for item in recalled})
            at_5.append(len(wanted & found[0]) / len(wanted))
            hits.append(1.0 if wanted & found[0] else 0.0)
            at_10.append(len(wanted & found[1]) / len(wanted))
            if at_5[-1] < 1:
                misses.append(f"{question.person}: {question.question}")
    finally:
        await store.close()
    return Score(
        r_at_5=statistics.fmean(at_5),
        hit_at_5=statistics.fmean(hits),
        r_at_10=statistics.fmean(at_10),
        p50_ms=percentile(timings, 0.5),
        p99_ms=percentile(timings, 0.99),
        misses=misses,
    )


async def measure(workdir: Path) -> dict[tuple[str, str], Score]:
    """Each variant's score on each split, by (split, variant)."""
    histories, questions = load()
    path = workdir / "memorybank.db"
    labels = await _fill(path, histories)
    last = max(datetime.fromisoformat(day) for days in histories.values() for day in days)
    now = last.replace(tzinfo=UTC) + timedelta(days=1, hours=12)
    return {
        (split, variant): await _score(
            path, labels, [q for q in questions if q.split == split], now, hybrid
        )
        for split in SPLITS
        for variant, hybrid in VARIANTS.items()
    }


def _figures(scores: dict[tuple[str, str], Score], counts: dict[str, int]) -> list[Figure]:
    figures = []
    for (split, variant), score in scores.items():
        suffix = "" if split == "report" else "_tune"
        detail = f"{split} split, {counts[split]} questions"
        for metric in ("r_at_5", "hit_at_5", "r_at_10"):
            figures.append(
                Figure(
                    name=f"public_{metric}_{variant}{suffix}",
                    value=getattr(score, metric),
                    unit="share",
                    detail=detail,
                )
            )
        for metric in ("p50_ms", "p99_ms"):
            figures.append(
                Figure(
                    name=f"public_{metric}_{variant}{suffix}",
                    value=getattr(score, metric),
                    unit="ms",
                    detail=f"{detail}, recall limit 5",
                )
            )
    return figures


def run(quick: bool) -> list[Figure]:
    del quick  # the corpus is small: always measured whole
    _, questions = load()
    counts = {split: sum(1 for q in questions if q.split == split) for split in SPLITS}
    with tempfile.TemporaryDirectory() as workdir:
        scores = asyncio.run(measure(Path(workdir)))
    return _figures(scores, counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, default="tune")
    parser.add_argument("--misses", action="store_true", help="list the split's misses")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        scores = asyncio.run(measure(Path(workdir)))
    print(f"{'variant':8} {'R@5':>6} {'hit@5':>6} {'R@10':>6} {'p50 ms':>7} {'p99 ms':>7}")
    for (split, variant), score in scores.items():
        if split != args.split:
            continue
        print(
            f"{variant:8} {score.r_at_5:6.3f} {score.hit_at_5:6.3f} {score.r_at_10:6.3f}"
            f" {score.p50_ms:7.2f} {score.p99_ms:7.2f}"
        )
        if args.misses:
            for miss in score.misses:
                print(f"    miss: {miss}")


if __name__ == "__main__":
    main()
