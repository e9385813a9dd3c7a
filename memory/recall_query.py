"""Turn a question into a full-text query that finds paraphrases, not only exact wording:
its content words joined by OR (README.md, *How recall ranks memories*)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

MAX_TERMS = 24
"""More terms than this add cost but almost never change which episodes match best."""

MIN_PREFIX_LENGTH = 7
"""Shorter words match exactly. As prefixes they would match too much (*plan*: *planet*),
and cost the most: a prefix term reads the index entries of every word it matches, and
short words are the common ones. From four letters, recall@5 on the dev questions gains
one question, but recall in a million-episode store takes twice as long; from seven, a
fifth longer."""

_ENGLISH = """
    a about above after again against all am an and any are aren as at be because been before
    being below between both but by can cannot could couldn did didn do does doesn doing don
    down during each few for from further get gets got had hadn has hasn have haven having he
    her here hers herself him himself his how i if in into is isn it its itself just let ll
    me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own please re s same shan she should shouldn so some such t than thanks that the
    their theirs them themselves then there these they this those through to too under until
    up ve very was wasn way we were weren what when where which while who whom why will with
    won would wouldn you your yours yourself yourselves
    """
_CHAT = """
    btw cheers fyi hello hey hi hiya lol ok okay oops pls plz sorry thank thx ty ugh wtf yeah
    yep
    """
"""Greetings and interjections of chat: never what a question is about."""
ENGLISH_STOPWORDS = frozenset(_ENGLISH.split())
"""English function words (recall's whole stopword list before it learnt chat's words)."""
STOPWORDS = ENGLISH_STOPWORDS | frozenset(_CHAT.split())

_WORD = re.compile(r"[^\W_]+")
_CASE_CHANGE = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_IDENTIFIER_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def identifier_parts(word: str) -> list[str]:
    """The parts of a camelCase or PascalCase identifier, lowercased (``parseHTTPResponse2``
    -> ``parse``, ``http``, ``response``, ``2``); any other word (``_`` and ``.`` split) is one."""
    parts = _IDENTIFIER_PART.findall(word)
    if not _CASE_CHANGE.search(word) or "".join(parts) != word:
        return [word.lower()]
    return [part.lower() for part in parts]


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def date_words(moment: datetime) -> str:
    """The day of ``moment`` as people name it: *May 4th 2023*. Indexed with each episode,
    so a question naming the day (*what did I tell you on May 4th?*) finds that day's."""
    return f"{moment:%B} {_ordinal(moment.day)} {moment.year}"


def indexed_words(text: str) -> list[str]:
    """The words of ``text`` a query can ask for, lowercased, as the full-text index holds
    them: every word but the stopwords and single characters, which :func:`search_terms`
    never asks for (a third of the index's postings, for nothing)."""
    return [
        lowered
        for lowered in (word.lower() for word in _WORD.findall(text))
        if len(lowered) >= 2 and lowered not in STOPWORDS
    ]


def _words(text: str) -> list[str]:
    """Every word of ``text``, lowercased; an identifier, then each of its parts. A
    stopword's parts are left out with it: the index holds whole words only, so a part
    alone (``hy`` of ``wHY``) would ask for a word the text never had."""
    words: list[str] = []
    for word in _WORD.findall(text):
        lowered = word.lower()
        words.append(lowered)
        parts = identifier_parts(word)
        if len(parts) > 1 and lowered not in STOPWORDS:
            words.extend(parts)
    return words


def search_terms(text: str, *, max_terms: int = MAX_TERMS) -> list[str]:
    """The distinct content words of ``text``, lowercased, in order of first appearance.
    With more than ``max_terms``, the longest (the earlier among equals) are kept: longer
    words are rarer, so they say more about what a long question is about."""
    terms = [
        word for word in dict.fromkeys(_words(text)) if len(word) >= 2 and word not in STOPWORDS
    ]
    if len(terms) <= max_terms:
        return terms
    by_length = sorted(range(len(terms)), key=lambda index: (-len(terms[index]), index))
    return [terms[index] for index in sorted(by_length[:max_terms])]


def is_prefix(word: str) -> bool:
    """Whether a query matches every word starting with ``word``'s stem: a word long
    enough not to be noise (see :data:`MIN_PREFIX_LENGTH`), and not a number."""
    return len(word) >= MIN_PREFIX_LENGTH and not word.isdigit()


def _term(partition: str, word: str) -> str:
    """``"<partition>_word"``, or the prefix term ``"<partition>_word"*``."""
    quoted = f"{partition}_{word}".replace('"', '""')
    return f'"{quoted}"' + ("*" if is_prefix(word) else "")


def fts5_match(terms: Sequence[str], partitions: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression: any of ``terms`` in any of ``partitions`` (see
    :mod:`memory.privacy`); None when there is nothing to search for."""
    if not terms or not partitions:
        return None
    return " OR ".join(_term(partition, term) for partition in partitions for term in terms)


def question_match(question: str, partitions: Sequence[str]) -> str | None:
    return fts5_match(search_terms(question), partitions)
