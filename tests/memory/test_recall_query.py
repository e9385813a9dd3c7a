"""Questions become OR-ed, quoted content words inside the asker's partition."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from hypothesis import given
from hypothesis import strategies as st

from memory.recall_query import MAX_TERMS, fts5_match, search_terms


def test_content_words_are_kept_lowercased_without_stopwords_or_punctuation() -> None:
    terms = search_terms("What's the way to get Billing deployed on STAGING?!")
    assert terms == ["billing", "deployed", "staging"]


def test_repeated_words_appear_once_in_first_order() -> None:
    assert search_terms("staging, billing; Staging billing") == ["staging", "billing"]


def test_words_keep_accents_and_digits_but_not_underscores_or_quotes() -> None:
    assert search_terms('café "v2" snake_case') == ["café", "v2", "snake", "case"]


def test_terms_are_capped() -> None:
    text = " ".join(f"word{i}" for i in range(100))
    terms = search_terms(text)
    assert len(terms) == MAX_TERMS
    assert terms[0] == "word0"
    assert search_terms(text, max_terms=3) == ["word0", "word1", "word2"]


def test_a_question_of_only_stopwords_has_no_terms() -> None:
    assert search_terms("what is it? how do I?") == []
    assert fts5_match([], ["u1"]) is None


def test_match_requires_a_scope_token_and_any_term() -> None:
    match = fts5_match(["billing", "staging"], ["u123", "c456"])
    assert match == (
        'scope : ("u123" OR "c456") AND {question answer lesson} : ("billing" OR "staging")'
    )


def test_quotes_inside_terms_are_escaped() -> None:
    assert fts5_match(['say"hi'], ["u1"]) == (
        'scope : ("u1") AND {question answer lesson} : ("say""hi")'
    )


@given(text=st.text(max_size=200))
def test_any_text_makes_a_valid_fts5_query_or_none(text: str) -> None:
    terms = search_terms(text)
    assert len(terms) <= MAX_TERMS
    assert all(term == term.lower() and len(term) >= 2 for term in terms)
    match = fts5_match(terms, ["u42"])
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.execute(
            "CREATE VIRTUAL TABLE t USING fts5(scope, question, answer, lesson,"
            " tokenize = 'porter unicode61 remove_diacritics 2')"
        )
        conn.execute("INSERT INTO t VALUES ('u42', ?, '', '')", [text])
        if match is not None:
            conn.execute("SELECT rowid FROM t WHERE t MATCH ?", [match]).fetchall()
