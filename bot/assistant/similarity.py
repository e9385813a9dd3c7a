"""Cheap text similarity for spotting an answer that repeats an earlier one.

No model, no dependency: lowercase word tokens, a light suffix-stripping stemmer, a longest
common run of words, ROUGE-L, and the commands (code spans) an answer gives.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from memory.recall_query import STOPWORDS, indexed_words

__all__ = [
    "REPEAT_ROUGE_L",
    "commands",
    "common_run",
    "coverage",
    "repeats",
    "rouge_l",
    "shared_commands",
    "stem",
    "stems",
    "words",
]

REPEAT_ROUGE_L = 0.5
"""From this ROUGE-L on, a later answer counts as the earlier one given again."""
_FENCED = re.compile(r"```[^\n`]*\n?(.*?)```", re.DOTALL)
_INLINE = re.compile(r"`([^`\n]+)`")
_MIN_COMMAND_CHARS = 4
_TOKEN = re.compile(r"\w+")

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


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F1 of two texts: their longest common subsequence of words, weighed
    against both lengths (1 for the same words in the same order, 0 for none shared)."""
    a, b = _TOKEN.findall(candidate.lower()), _TOKEN.findall(reference.lower())
    if not a or not b:
        return 0.0
    previous = [0] * (len(b) + 1)
    for word in a:
        current = [0]
        for position, other in enumerate(b, start=1):
            current.append(
                previous[position - 1] + 1
                if word == other
                else max(previous[position], current[position - 1])
            )
        previous = current
    common = previous[-1]
    if not common:
        return 0.0
    precision, recall = common / len(a), common / len(b)
    return 2 * precision * recall / (precision + recall)


def commands(text: str) -> set[str]:
    """What an answer tells the person to type: each line of its code blocks and each
    inline code span, whitespace collapsed and lowercased (short spans such as `ls` or
    `-r` excepted: they name things rather than give a command)."""
    spans = [line for block in _FENCED.findall(text) for line in block.splitlines()]
    spans += _INLINE.findall(_FENCED.sub(" ", text))
    normalised = {" ".join(span.split()).lower().strip("$ ") for span in spans}
    return {span for span in normalised if len(span) >= _MIN_COMMAND_CHARS}


def shared_commands(later: str, earlier: str) -> set[str]:
    """The commands of ``earlier`` that ``later`` gives again (in code or in its text)."""
    later_text = " ".join(later.lower().split())
    return {command for command in commands(earlier) if command in later_text}


def repeats(later: str, earlier: str) -> bool:
    """Whether ``later`` gives ``earlier`` again: one of its commands, or ROUGE-L of
    :data:`REPEAT_ROUGE_L` or more."""
    return bool(shared_commands(later, earlier)) or rouge_l(later, earlier) >= REPEAT_ROUGE_L
