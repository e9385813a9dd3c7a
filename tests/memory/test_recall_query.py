"""Questions become OR-ed, quoted content words inside the asker's partition."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from datetime import UTC, datetime

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memory.recall_query import (
    MAX_TERMS,
    MIN_PREFIX_LENGTH,
    date_words,
    fts5_match,
    identifier_parts,
    indexed_words,
    question_match,
    search_terms,
)
from memory.sqlite.fts import TOKENIZE, partitioned


def test_content_words_are_kept_lowercased_without_stopwords_or_punctuation() -> None:
    terms = search_terms("What's the way to get Billing deployed on STAGING?!")
    assert terms == ["billing", "deployed", "staging"]


def test_repeated_words_appear_once_in_first_order() -> None:
    assert search_terms("staging, billing; Staging billing") == ["staging", "billing"]


def test_words_keep_accents_and_digits_but_not_underscores_or_quotes() -> None:
    assert search_terms('café "v2" snake_case') == ["café", "v2", "snake", "case"]


def test_terms_are_capped_keeping_the_longest_in_question_order() -> None:
    text = " ".join(f"w{i}" for i in range(100))
    terms = search_terms(text)
    assert len(terms) == MAX_TERMS
    assert terms == [f"w{i}" for i in range(10, 34)]  # the first 24 of three characters
    assert search_terms("aa bbbb cc dddd eeeee ff", max_terms=3) == ["bbbb", "dddd", "eeeee"]


def test_a_long_rambling_question_keeps_its_specific_words_however_late() -> None:
    chatter = (
        "ok so the team had a long week, lots of calls, my cat is sick, the wifi is slow, "
        "our lead is off, the sun is out, big day, we ate cake, the bus was late, my mum "
        "says hi, new shoes, the demo went fine, the boss is away, kids are home, "
    )
    terms = search_terms(chatter + "how do we rotate the kubernetes certificates")
    assert len(terms) == MAX_TERMS
    assert {"rotate", "kubernetes", "certificates"} <= set(terms)


def test_greetings_and_chat_interjections_are_not_terms() -> None:
    assert search_terms("hey, thx lol, sorry!! ok pls") == []
    assert search_terms("hi, the staging deploy again pls") == ["staging", "deploy"]


def test_a_question_of_only_stopwords_has_no_terms() -> None:
    assert search_terms("what is it? how do I?") == []
    assert fts5_match([], ["u1"]) is None


def test_match_names_each_term_in_each_partition() -> None:
    match = fts5_match(["billing", "staging"], ["1123", "2456"])
    assert match == ('"1123_billing"* OR "1123_staging"* OR "2456_billing"* OR "2456_staging"*')


def test_words_long_enough_are_prefix_terms_short_words_and_numbers_exact() -> None:
    short = "x" * (MIN_PREFIX_LENGTH - 1)
    long = "x" * MIN_PREFIX_LENGTH
    assert fts5_match([short, long, "20260105", "v2"], ["11"]) == (
        f'"11_{short}" OR "11_{long}"* OR "11_20260105" OR "11_v2"'
    )


def test_quotes_inside_terms_are_escaped() -> None:
    assert fts5_match(['say"hi', 'say"hello'], ["11"]) == '"11_say""hi" OR "11_say""hello"*'


@pytest.mark.parametrize(
    ("word", "parts"),
    [
        ("OrderList", ["order", "list"]),
        ("useEffect", ["use", "effect"]),
        ("parseHTTPResponse2", ["parse", "http", "response", "2"]),
        ("S3KeySensor", ["s", "3", "key", "sensor"]),
        ("Staging", ["staging"]),
        ("VLOOKUP", ["vlookup"]),
        ("v2", ["v2"]),
        ("café", ["café"]),
        ("crèmeBrûlée", ["crèmebrûlée"]),
    ],
)
def test_identifier_parts_split_camel_case_only(word: str, parts: list[str]) -> None:
    assert identifier_parts(word) == parts


def test_identifiers_are_searched_whole_and_by_their_parts() -> None:
    assert search_terms("why does OrderList call fetch_orders twice") == [
        "orderlist",
        "order",
        "list",
        "call",
        "fetch",
        "orders",
        "twice",
    ]


def test_question_match_is_the_match_of_the_questions_terms() -> None:
    question = "Deploying billing to staging?"
    assert question_match(question, ["u1"]) == fts5_match(search_terms(question), ["u1"])
    assert question_match("how do I?", ["u1"]) is None


@example(text="wHY")
@given(text=st.text(max_size=200))
def test_any_text_makes_a_valid_query_that_finds_that_text_in_its_partition_only(
    text: str,
) -> None:
    terms = search_terms(text)
    assert len(terms) <= MAX_TERMS
    assert all(term == term.lower() and len(term) >= 2 for term in terms)
    match = fts5_match(terms, ["142"])
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.execute(f'CREATE VIRTUAL TABLE t USING fts5(question, tokenize = "{TOKENIZE}")')
        conn.execute("INSERT INTO t (rowid, question) VALUES (1, ?)", [partitioned("142", text)])
        conn.execute("INSERT INTO t (rowid, question) VALUES (2, ?)", [partitioned("1420", text)])
        if match is not None:
            found = conn.execute("SELECT rowid FROM t WHERE t MATCH ?", [match]).fetchall()
            assert found == [(1,)]


def test_the_index_holds_the_content_words_only() -> None:
    words = indexed_words("I think the Deploy of v2 is a go, thx!")
    assert words == ["think", "deploy", "v2", "go"]


@example(text="The getThe parseX a I")
@given(text=st.text(max_size=200))
def test_the_index_leaves_out_only_words_no_question_asks_for(text: str) -> None:
    kept = set(indexed_words(text))
    for word in re.findall(r"[^\W_]+", text):
        if word.lower() not in kept:
            assert word.lower() not in search_terms(word)


def test_date_words_name_the_day_as_people_do() -> None:
    assert date_words(datetime(2023, 5, 4, 23, 59, tzinfo=UTC)) == "May 4th 2023"
    assert date_words(datetime(2023, 4, 1, tzinfo=UTC)) == "April 1st 2023"
    assert date_words(datetime(2023, 4, 22, tzinfo=UTC)) == "April 22nd 2023"
    assert date_words(datetime(2023, 4, 13, tzinfo=UTC)) == "April 13th 2023"
