"""Translating Slack payloads for the memory listeners: votes, scopes, list text."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.listeners.actions.feedback_vote import vote_event
from bot.listeners.commands.memory import conversation_scope, memory_message, memory_summary
from bot.testing import block_kit_problems
from memory import ConversationKind, Episode, EpisodeStatus, Scope, Vote, WisdomNote
from memory.reactions import BUTTON

T0 = datetime(2026, 11, 23, 9, tzinfo=UTC)
DM = Scope(team_id="T1", channel_id="D1", kind=ConversationKind.DM)


def click(value: str, **overrides: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    body: dict[str, Any] = {
        "type": "block_actions",
        "user": {"id": "U1"},
        "container": {"type": "message", "message_ts": "10.5", "channel_id": "D1"},
        "channel": {"id": "D1"},
        "message": {"ts": "10.5"},
        **overrides,
    }
    return body, {"action_id": "answer_feedback", "type": "feedback_buttons", "value": value}


def test_a_thumbs_down_click_is_a_button_vote_on_the_clicked_message() -> None:
    event = vote_event(*click("down"), T0)

    assert event is not None
    assert (event.channel_id, event.message_ts, event.voter_id) == ("D1", "10.5", "U1")
    assert (event.reaction, event.vote, event.added, event.at) == (BUTTON, Vote.DOWN, True, T0)


def test_without_a_container_the_channel_and_message_are_used() -> None:
    event = vote_event(*click("up", container={}), T0)

    assert event is not None
    assert (event.channel_id, event.message_ts, event.vote) == ("D1", "10.5", Vote.UP)


def test_clicks_that_are_not_votes_are_dropped() -> None:
    assert vote_event(*click("maybe"), T0) is None
    assert vote_event(*click("up", user={}), T0) is None
    no_message = click("up", container={}, message={}, channel={})
    assert vote_event(*no_message, T0) is None


def test_a_d_channel_is_a_dm_scope_and_anything_else_a_channel() -> None:
    assert conversation_scope("T1", "D0ALICE").kind is ConversationKind.DM
    assert conversation_scope("T1", "C0GENERAL").kind is ConversationKind.CHANNEL
    assert conversation_scope("T1", "G0PRIVATE") == Scope(
        team_id="T1", channel_id="G0PRIVATE", kind=ConversationKind.CHANNEL
    )


def episode(question: str, status: EpisodeStatus) -> Episode:
    return Episode(
        id=1,
        scope=DM,
        requester_id="U1",
        thread_ts=None,
        question=question,
        answer="a",
        status=status,
        created_at=T0,
    )


def test_the_memory_message_has_a_text_fallback_and_valid_blocks() -> None:
    note = WisdomNote(
        id=2, scope=DM, user_id="U1", text="Likes brevity.", episode_count=2, created_at=T0
    )

    message = memory_message([episode("How do I restart search?", EpisodeStatus.FAILURE)], [note])

    assert message["text"].splitlines()[1:] == ["📝 Likes brevity.", "👎 How do I restart search?"]
    assert block_kit_problems(message["blocks"]) == []
    assert "react 👍 or 👎" in memory_summary([])
