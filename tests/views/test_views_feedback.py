"""Feedback buttons under an answer, and answers shown as blocks."""

from __future__ import annotations

from bot.views.feedback import (
    FEEDBACK_ACTION_PATTERN,
    FEEDBACK_FOOTERS,
    fallback_feedback_block,
    feedback_block,
    vote_for,
)
from memory import Vote
from tests.support.block_kit import block_kit_problems


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
