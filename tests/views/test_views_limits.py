"""The Block Kit checker catches what Slack would reject, and accepts what it would not."""

from __future__ import annotations

from typing import Any

from bot.views.limits import clip
from tests.support.block_kit import block_kit_problems


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def button(text: str = "Go", *, action_id: str = "go", value: str = "v") -> dict[str, Any]:
    return {
        "type": "button",
        "text": {"type": "plain_text", "text": text},
        "action_id": action_id,
        "value": value,
    }


def test_valid_blocks_have_no_problems() -> None:
    blocks = [
        {"type": "header", "text": {"type": "plain_text", "text": "Title"}},
        {**section("x" * 3000), "accessory": button()},
        {"type": "divider"},
        {"type": "actions", "elements": [button(action_id="a"), button(action_id="b")]},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "small print"}]},
    ]

    assert block_kit_problems(blocks) == []


def test_too_many_blocks() -> None:
    assert block_kit_problems([{"type": "divider"}] * 100) == []
    assert block_kit_problems([{"type": "divider"}] * 101) == ["101 blocks, more than 100"]


def test_texts_too_long_for_their_place() -> None:
    [section_problem] = block_kit_problems([section("x" * 3001)])
    [header_problem] = block_kit_problems(
        [{"type": "header", "text": {"type": "plain_text", "text": "h" * 151}}]
    )
    [button_problem] = block_kit_problems([{"type": "actions", "elements": [button("b" * 76)]}])

    assert "3001 characters, more than 3000" in section_problem
    assert "151 characters, more than 150" in header_problem
    assert "76 characters, more than 75" in button_problem


def test_identifiers_and_values_too_long() -> None:
    problems = block_kit_problems(
        [{"type": "actions", "elements": [button(action_id="a" * 256, value="v" * 2001)]}]
    )

    assert any("action_id of 256 characters" in problem for problem in problems)
    assert any("value of 2001 characters" in problem for problem in problems)


def test_structure_slack_rejects() -> None:
    duplicate_ids = [{"type": "actions", "elements": [button(), button()]}]
    markdown_header = [{"type": "header", "text": {"type": "mrkdwn", "text": "*h*"}}]
    empty_text = [section("")]
    same_block_ids = [{"type": "divider", "block_id": "x"}, {"type": "divider", "block_id": "x"}]

    assert block_kit_problems(duplicate_ids) == [
        "block 0 (actions): duplicate action_id in one block"
    ]
    assert "plain_text is required" in block_kit_problems(markdown_header)[0]
    assert block_kit_problems(empty_text) == ["block 0 (section): empty text"]
    assert block_kit_problems(same_block_ids) == ["duplicate block_id"]


def test_confirm_dialog_limits() -> None:
    confirmed = button()
    confirmed["confirm"] = {
        "title": {"type": "plain_text", "text": "t" * 101},
        "text": {"type": "mrkdwn", "text": "sure?"},
        "confirm": {"type": "plain_text", "text": "Yes"},
        "deny": {"type": "plain_text", "text": "No"},
    }

    [problem] = block_kit_problems([{"type": "actions", "elements": [confirmed]}])

    assert "101 characters, more than 100" in problem


def test_clip_keeps_short_text_and_cuts_long_text_to_the_limit() -> None:
    assert clip("short\ntext", 20) == "short\ntext"
    cut = clip("word " * 100, 50)
    assert len(cut) <= 50
    assert cut.endswith("…")
