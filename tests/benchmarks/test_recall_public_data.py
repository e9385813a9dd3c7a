"""The public recall benchmark's corpora: every evidence label names a real exchange, and
the splits keep people apart."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from benchmarks import recall_public
from benchmarks.public_corpora import (
    CORPORA,
    LOCOMO_CATEGORIES,
    SPLITS,
    Corpus,
    Exchange,
    Question,
    load,
)


@pytest.fixture(scope="module", params=sorted(CORPORA))
def corpus(request: pytest.FixtureRequest) -> Corpus:
    return load(request.param)


def test_every_evidence_label_names_an_exchange_of_that_person(corpus: Corpus) -> None:
    for question in corpus.questions:
        labels = {exchange.label for exchange in corpus.histories[question.person]}
        assert question.evidence, question.question
        assert set(question.evidence) <= labels, (question.question, question.evidence)


def test_the_splits_keep_people_apart(corpus: Corpus) -> None:
    people = {split: {q.person for q in corpus.questions if q.split == split} for split in SPLITS}
    assert people["tune"] and people["report"]
    assert not people["tune"] & people["report"]


def test_every_question_is_asked_after_the_last_exchange(corpus: Corpus) -> None:
    last = max(e.at for exchanges in corpus.histories.values() for e in exchanges)
    assert corpus.asked_at > last


def test_memorybank_keeps_its_99_hand_labelled_questions() -> None:
    memorybank = load("memorybank")
    assert len(memorybank.questions) == 99
    assert sum(len(exchanges) for exchanges in memorybank.histories.values()) == 566


def test_locomo_holds_every_answerable_question_with_its_category() -> None:
    locomo = load("locomo")
    assert len(locomo.histories) == 10
    assert len(locomo.questions) == 1536  # 1,986 less 446 adversarial and 4 without evidence
    assert {q.category for q in locomo.questions} == set(LOCOMO_CATEGORIES.values())
    by_split = {split: sum(q.split == split for q in locomo.questions) for split in SPLITS}
    assert by_split == {"tune": 760, "report": 776}


def test_a_locomo_exchange_is_a_turn_and_its_reply_each_named_by_its_speaker() -> None:
    locomo = load("locomo")
    first, second = locomo.histories["Caroline and Melanie"][:2]
    assert first.label == "D1:1"
    assert first.question.startswith("Caroline: Hey Mel!")
    assert first.answer.startswith("Melanie: Hey Caroline!")
    assert second.label == "D1:3"
    assert second.at > first.at
    assert second.at.date().isoformat() == "2023-05-08"


def test_locomo_evidence_names_the_exchange_holding_the_turn_however_it_is_written() -> None:
    locomo = load("locomo")
    by_question = {q.question: q for q in locomo.questions}
    # "D1:3", the first turn of its exchange
    support = by_question["When did Caroline go to the LGBTQ support group?"]
    assert support.evidence == ["D1:3"]
    # "D1:12", the reply: the exchange starting at D1:11 holds it
    sunrise = by_question["When did Melanie paint a sunrise?"]
    assert sunrise.evidence == ["D1:11"]
    held = {e.label: e for e in locomo.histories["Caroline and Melanie"]}
    assert "painting of a sunset" in held["D1:11"].answer  # the photo's caption is kept
    # "D8:6; D9:17" in one string: both turns
    painted = by_question["What did Melanie paint recently?"]
    assert len(painted.evidence) == 2
    assert {label.split(":")[0] for label in painted.evidence} == {"D8", "D9"}


def test_the_benchmark_scores_a_corpus_and_names_only_figures_it_declares(
    tmp_path: Path,
) -> None:
    day = datetime(2024, 3, 1, 12, tzinfo=UTC)
    corpus = Corpus(
        name="locomo",
        histories={
            "Ann and Bo": [
                Exchange(label="D1:1", at=day, question="Ann: I adopted a puppy", answer="Bo: Yay"),
                Exchange(
                    label="D1:3",
                    at=day + timedelta(minutes=2),
                    question="Ann: The printer jammed again",
                    answer="Bo: Kick it",
                ),
            ]
        },
        questions=[
            Question(
                person="Ann and Bo",
                question="What pet did Ann adopt, a puppy?",
                evidence=["D1:1"],
                split=split,
                category="single_hop",
            )
            for split in SPLITS
        ],
    )
    scores = asyncio.run(recall_public.measure(tmp_path, corpus))
    assert {score.r_at_5 for score in scores.values()} == {1.0}
    figures = recall_public.figures_of("locomo", scores)
    assert {figure.name for figure in figures} <= set(recall_public.FIGURES)
    assert "locomo_r_at_5_single_hop_hybrid" in {figure.name for figure in figures}
