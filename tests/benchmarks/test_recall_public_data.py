"""The public recall benchmark's hand-written evidence labels name real exchanges."""

from __future__ import annotations

from benchmarks.recall_public import SPLITS, load


def test_every_evidence_label_names_an_exchange_of_that_person() -> None:
    histories, questions = load()
    assert len(questions) == 99
    for question in questions:
        days = histories[question.person]
        for label in question.evidence:
            day, index = label.split("#")
            assert int(index) < len(days[day]), (question.question, label)


def test_the_splits_keep_people_apart() -> None:
    _, questions = load()
    people = {split: {q.person for q in questions if q.split == split} for split in SPLITS}
    assert people["tune"] and people["report"]
    assert not people["tune"] & people["report"]
