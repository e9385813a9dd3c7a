"""Parsing model replies into lessons, scores and notes, robustly or not at all."""

from __future__ import annotations

import pytest

from bot.assistant.lessons.parsing import (
    MAX_LESSON_CHARS,
    UnusableReply,
    parse_importance,
    parse_lesson,
    parse_notes,
)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("7", 7),
        ("  10\n", 10),
        ("Score: 8/10", 8),
        ("I would rate this 3 out of 10.", 3),
        ("6.6", 7),
        ("<think>maybe 2 or 9</think>\n4", 4),
    ],
)
def test_importance_is_the_first_number_on_the_scale(reply: str, expected: int) -> None:
    assert parse_importance(reply) == expected


@pytest.mark.parametrize("reply", ["", "important!", "0", "11", "Score: 42", "<think>5</think>"])
def test_importance_without_a_number_on_the_scale_is_rejected(reply: str) -> None:
    with pytest.raises(UnusableReply):
        parse_importance(reply)


def test_the_error_never_quotes_the_reply() -> None:
    with pytest.raises(UnusableReply) as caught:
        parse_importance("the password is hunter and 999")
    assert "hunter" not in str(caught.value)
    assert "999" not in str(caught.value)


def test_lesson_is_one_line_without_label() -> None:
    reply = "<think>let me see</think>\nLesson:  The answer guessed a port.\n\nAsk which env first."

    assert parse_lesson(reply) == "The answer guessed a port. Ask which env first."


def test_long_lesson_is_shortened() -> None:
    lesson = parse_lesson("word " * 500)

    assert len(lesson) <= MAX_LESSON_CHARS
    assert lesson.endswith("…")


@pytest.mark.parametrize("reply", ["", "   \n", "<think>hmm</think>", "```\n```"])
def test_empty_lesson_is_rejected(reply: str) -> None:
    with pytest.raises(UnusableReply):
        parse_lesson(reply)


@pytest.mark.parametrize(
    "reply",
    [
        '["Prefers shell commands.", "Staging is called blue."]',
        '```json\n["Prefers shell commands.", "Staging is called blue."]\n```',
        'Here you go:\n["Prefers shell commands.", "Staging is called blue."]',
        "Here are the notes:\n- Prefers shell commands.\n- Staging is called blue.",
        "1. Prefers shell commands.\n2) Staging is called blue.\n",
        "* Prefers   shell commands.\n\n• Staging is called blue.",
        "Prefers shell commands.\nStaging is called blue.",
    ],
)
def test_notes_from_json_bullets_or_lines(reply: str) -> None:
    assert parse_notes(reply) == ["Prefers shell commands.", "Staging is called blue."]


def test_a_json_list_of_non_strings_falls_back_to_lines() -> None:
    assert parse_notes("[1, 2]\n- Keep answers short.") == ["Keep answers short."]


@pytest.mark.parametrize("reply", ["", "[]", '["", "  "]', "<think>notes</think>"])
def test_no_notes_is_rejected(reply: str) -> None:
    with pytest.raises(UnusableReply):
        parse_notes(reply)
