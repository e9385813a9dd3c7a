"""Turn a question into a full-text query that finds paraphrases, not only exact wording.

People ask follow-up questions in other words: they share a few content words, often
inflected differently. So the query keeps only content words, quotes each one (the
backend's stemmer then matches ``deployed`` with ``deploy``) and joins them with OR, and
relevance ranking (BM25) rewards episodes sharing more of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["MAX_TERMS", "STOPWORDS", "fts5_match", "question_match", "search_terms"]

MAX_TERMS = 24
"""More terms than this add cost but almost never change which episodes match best."""

_STOPWORD_LIST = """
    a about above after again against all am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn
    doing don down during each few for from further get gets got had hadn has hasn have
    haven having he her here hers herself him himself his how i if in into is isn it its
    itself just let ll me more most my myself no nor not now of off on once only or other
    our ours ourselves out over own please re s same shan she should shouldn so some such
    t than thanks that the their theirs them themselves then there these they this those
    through to too under until up ve very was wasn way we were weren what when where which
    while who whom why will with won would wouldn you your yours yourself yourselves
    """
STOPWORDS = frozenset(_STOPWORD_LIST.split())

_WORD = re.compile(r"[^\W_]+")


def search_terms(text: str, *, max_terms: int = MAX_TERMS) -> list[str]:
    """The distinct content words of ``text``, lowercased, in order of first appearance."""
    terms: list[str] = []
    for word in _WORD.findall(text.lower()):
        if len(word) < 2 or word in STOPWORDS or word in terms:
            continue
        terms.append(word)
        if len(terms) == max_terms:
            break
    return terms


def _quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _any_of(values: Sequence[str]) -> str:
    return "(" + " OR ".join(_quoted(value) for value in values) + ")"


def fts5_match(
    terms: Sequence[str],
    scope_tokens: Sequence[str],
    *,
    scope_column: str = "scope",
    text_columns: Sequence[str] = ("question", "answer", "lesson"),
) -> str | None:
    """An FTS5 MATCH expression: any of ``scope_tokens`` AND any of ``terms``.

    The scope tokens are matched in their own column, so the index lookup only visits
    episodes of the asker's partition. Returns None when there is nothing to search for.
    """
    if not terms or not scope_tokens:
        return None
    return (
        f"{scope_column} : {_any_of(scope_tokens)}"
        f" AND {{{' '.join(text_columns)}}} : {_any_of(terms)}"
    )


def question_match(question: str, scope_tokens: Sequence[str]) -> str | None:
    """The MATCH expression recall runs for ``question`` within ``scope_tokens``."""
    return fts5_match(search_terms(question), scope_tokens)
