"""Cheap text similarity for spotting an answer that repeats an earlier one.

No model, no dependency: lowercase word tokens, a light suffix-stripping stemmer, and a
longest common run of words.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from memory.recall_query import STOPWORDS, indexed_words

__all__ = ["common_run", "coverage", "stem", "stems", "words"]

_SUFFIXES = (
    "ations",
    "ation",
    "ments",
    "ment",
    "ness",
    "ings",
    "ing",
    "edly",
    "ies",
    "ied",
    "ers",
    "er",
    "ed",
    "ly",
    "es",
    "s",
)
_MIN_STEM = 3
_UNDOUBLING = frozenset({"ing", "ings", "ed", "edly", "er", "ers"})


def words(text: str) -> list[str]:
    """The words of ``text``, lowercased, split as the full-text index splits them."""
    return indexed_words(text)


def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            root = word[: -len(suffix)]
            if suffix in _UNDOUBLING and root[-1] == root[-2] and root[-1] not in "lsz":
                return root[:-1]  # resetting -> reset, planned -> plan
            return root
    return word


def stems(text: str, *, ignore: frozenset[str] = frozenset()) -> set[str]:
    """The distinctive stems of a text: no stopwords, no short words, none in ``ignore``."""
    return {
        stem(word)
        for word in words(text)
        if len(word) >= _MIN_STEM and word not in STOPWORDS and word not in ignore
    } - ignore


def coverage(text: str, reference: set[str]) -> float:
    """The share of ``reference`` stems found in ``text`` (0 when there are none)."""
    if not reference:
        return 0.0
    return len(reference & stems(text)) / len(reference)


def common_run(first: str, second: str) -> int:
    """The length, in words, of the longest passage both texts share."""
    a, b = words(first), words(second)
    if not a or not b:
        return 0
    match = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return match.size
