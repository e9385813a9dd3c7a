"""The ``/memory`` list: outcomes, lessons and notes, each with its own "Forget" button."""

from __future__ import annotations

from typing import Any

from bot.views.memory_list import (
    FORGET_ITEM_ACTION_ID,
    ItemKind,
    ItemRef,
    memory_list_blocks,
)
from memory import EpisodeStatus
from tests.support.block_kit import block_kit_problems
from tests.views.views_support import episode, note


def forget_values(blocks: list[dict[str, Any]]) -> list[str]:
    return [
        block["accessory"]["value"]
        for block in blocks
        if block.get("accessory", {}).get("action_id") == FORGET_ITEM_ACTION_ID
    ]


def texts(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(block["text"]["text"] for block in blocks if block["type"] == "section")


def test_nothing_remembered_says_how_to_teach_the_bot() -> None:
    blocks = memory_list_blocks([], [])

    assert forget_values(blocks) == []
    assert "react 👍 or 👎" in texts(blocks).lower()
    assert block_kit_problems(blocks) == []


def test_each_item_shows_its_outcome_and_lesson_with_a_forget_button() -> None:
    worked = episode(7, "How do I restart search?")
    failed = episode(
        9,
        "How do I deploy billing?",
        status=EpisodeStatus.FAILURE,
        answer="Run make deploy-prod.",
        lesson="Staging deploys use make deploy-staging.",
    )
    blocks = memory_list_blocks([worked, failed], [note(3, "Likes short answers.")])

    assert forget_values(blocks) == ["wisdom:3", "episode:7", "episode:9"]
    shown = texts(blocks)
    assert "👍 Helpful" in shown
    assert "👎 Not helpful" in shown
    assert "*Lesson:* Staging deploys use make deploy-staging." in shown
    assert "Likes short answers." in shown
    assert block_kit_problems(blocks) == []


def test_many_huge_items_stay_within_slacks_limits_and_are_counted() -> None:
    huge = "word " * 2000
    episodes = [episode(n, huge, answer=huge, lesson=huge) for n in range(1, 201)]

    blocks = memory_list_blocks(episodes, [note(1, huge)])

    assert block_kit_problems(blocks) == []
    assert len(forget_values(blocks)) == 40
    assert any(
        "161 more" in e["text"] for b in blocks if b["type"] == "context" for e in b["elements"]
    )


def test_item_values_round_trip_and_garbage_is_refused() -> None:
    ref = ItemRef(kind=ItemKind.EPISODE, id=12)

    assert ItemRef.parse(ref.value) == ref
    assert ItemRef.parse("wisdom:3") == ItemRef(kind=ItemKind.WISDOM, id=3)
    garbage = (None, "", "episode", "episode:", "episode:-1", "vote:3", "wisdom:x", 7, ["x"])
    not_row_ids = ("episode:²", "episode:١٢", "episode:" + "9" * 20, "episode:0", "episode: 3")
    for value in (*garbage, *not_row_ids):
        assert ItemRef.parse(value) is None
