"""Feedback buttons under an answer, and answers shown as blocks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.views.feedback import (
    FEEDBACK_ACTION_PATTERN,
    FEEDBACK_FOOTERS,
    answer_blocks,
    fallback_feedback_block,
    feedback_block,
    text_sections,
    vote_for,
)
from bot.views.limits import block_kit_problems
from memory import Vote


def test_the_preferred_footer_is_slacks_feedback_buttons_in_context_actions() -> None:
    block = feedback_block()

    [element] = block["elements"]
    assert block["type"] == "context_actions"
    assert element["type"] == "feedback_buttons"
    assert vote_for(element["positive_button"]["value"]) is Vote.UP
    assert vote_for(element["negative_button"]["value"]) is Vote.DOWN
    assert FEEDBACK_ACTION_PATTERN.match(element["action_id"])
    assert FEEDBACK_FOOTERS[0] == [block]


def test_the_fallback_is_two_labelled_buttons_in_an_actions_block() -> None:
    block = fallback_feedback_block()

    labels = [element["text"]["text"] for element in block["elements"]]
    votes = [vote_for(element["value"]) for element in block["elements"]]
    assert block["type"] == "actions"
    assert labels == ["👍 Helpful", "👎 Not helpful"]
    assert votes == [Vote.UP, Vote.DOWN]
    assert all(FEEDBACK_ACTION_PATTERN.match(e["action_id"]) for e in block["elements"])
    assert FEEDBACK_FOOTERS[1] == [block]


def test_both_footers_are_valid_block_kit() -> None:
    for footer in FEEDBACK_FOOTERS:
        assert block_kit_problems(footer) == []


def test_values_that_are_not_votes_are_ignored() -> None:
    assert vote_for("sideways") is None
    assert vote_for(None) is None
    assert not FEEDBACK_ACTION_PATTERN.match("answer_feedback:maybe")


def test_a_long_answer_becomes_sections_cut_at_line_breaks() -> None:
    text = "\n".join(f"line {n} " + "x" * 90 for n in range(60))

    sections = text_sections(text)

    assert len(sections) > 1
    assert "".join(s["text"]["text"] for s in sections) == text
    assert all(s["text"]["text"].endswith("\n") for s in sections[:-1])


@given(st.text(min_size=0, max_size=9000))
def test_answer_blocks_are_always_valid_and_keep_the_text(text: str) -> None:
    blocks = answer_blocks(text, FEEDBACK_FOOTERS[0])

    assert block_kit_problems(blocks) == []
    shown = "".join(b["text"]["text"] for b in blocks if b["type"] == "section")
    assert shown.strip() == (text.strip() or "…").strip()
    assert blocks[-1] == feedback_block()
