"""Realistic, reproducible exchange text: words drawn from a Zipf distribution.

Recall cost depends on the shape of the full-text index: a few very common words with
long doclists, and a long tail of rare ones. Uniformly random words would make every
doclist short and every benchmark flattering, so questions and answers here draw from a
vocabulary ranked by frequency (the common English and workplace words first, then a
long tail of made-up words), with the probability of rank ``r`` proportional to
``1 / r ** ZIPF_EXPONENT``, as in natural language.
"""

from __future__ import annotations

import itertools
import random
from bisect import bisect_left

__all__ = ["ZIPF_EXPONENT", "Corpus"]

ZIPF_EXPONENT = 1.07
TAIL_WORDS = 30_000
"""Made-up rare words after the common ones (real vocabularies run to tens of thousands)."""

_COMMON = """
    the to and of a in is for that it on you with this be are we can not have as at
    from but or if by do will an my so what was our all there how about they just when
    get one up more out use need new any which should time would like also make no then
    now their some know team deploy build release data user please test error server
    file report meeting project service account access update issue check run code
    change config database query api log customer order invoice budget review plan
    week today tomorrow question answer help support ticket incident alert metric
    dashboard pipeline branch merge request version cluster node region latency cost
    backup restore migration schema index table column cache token password login
    permission role group channel message thread email calendar schedule deadline
    sprint roadmap feature bug fix patch rollback staging production environment
    secret key certificate domain network firewall proxy gateway queue worker job
    task script function class module package library dependency upgrade install
    container image registry volume storage bucket upload download export import
    payment refund subscription contract vendor legal policy security audit compliance
    hiring onboarding offboarding laptop vpn wifi printer office travel expense
    approval manager director quarter revenue forecast target goal kpi okr launch
    """

_SYLLABLES = [consonant + vowel for consonant in "bcdfgklmnprstvz" for vowel in "aeiou"]


def _vocabulary() -> list[str]:
    """The common words in rank order, then made-up words of three and four syllables."""
    common = list(dict.fromkeys(_COMMON.split()))
    tail: list[str] = []
    for size in (3, 4):
        for parts in itertools.product(_SYLLABLES, repeat=size):
            tail.append("".join(parts))
            if len(tail) == TAIL_WORDS:
                break
        if len(tail) == TAIL_WORDS:
            break
    rng = random.Random(0)  # spread the rare words' ranks, deterministically
    rng.shuffle(tail)
    return common + tail


class Corpus:
    """Seeded generator of questions and answers; the same seed gives the same text."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self.words = _vocabulary()
        weights = [1.0 / rank**ZIPF_EXPONENT for rank in range(1, len(self.words) + 1)]
        self._cumulative = list(itertools.accumulate(weights))

    def _word(self) -> str:
        point = self._rng.random() * self._cumulative[-1]
        return self.words[bisect_left(self._cumulative, point)]

    def sentence(self, low: int, high: int) -> str:
        count = self._rng.randint(low, high)
        return " ".join(self._word() for _ in range(count)).capitalize()

    def question(self) -> str:
        return self.sentence(6, 18) + "?"

    def answer(self) -> str:
        return ". ".join(self.sentence(8, 20) for _ in range(self._rng.randint(1, 4))) + "."
