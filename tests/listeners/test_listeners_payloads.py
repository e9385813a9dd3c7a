"""Translating Slack payloads for the memory listeners: votes, scopes, list text."""

from __future__ import annotations

from typing import Any

import pytest

from bot.listeners.actions.feedback_vote import button_vote
from bot.listeners.commands.memory import conversation_scope, memory_message, memory_summary
from bot.listeners.events.reactions import reaction_vote
from memory import ConversationKind, Episode, EpisodeStatus, Scope, Vote, WisdomNote
from memory.config import BUTTON
from tests.episodes import DM, T0, make_episode
from tests.support.block_kit import block_kit_problems


def click(value: str, **overrides: Any) -> dict[str, Any]:
    return {
        "type": "block_actions",
        "user": {"id": "U1"},
        "container": {"type": "message", "message_ts": "10.5", "channel_id": "D1"},
        "channel": {"id": "D1"},
        "message": {"ts": "10.5"},
        "actions": [{"action_id": "answer_feedback", "type": "feedback_buttons", "value": value}],
        **overrides,
    }


def test_a_thumbs_down_click_is_a_button_vote_on_the_clicked_message() -> None:
    event = button_vote(click("down"), T0)

    assert event is not None
    assert (event.channel_id, event.message_ts, event.voter_id) == ("D1", "10.5", "U1")
    assert (event.reaction, event.vote, event.added, event.at) == (BUTTON, Vote.DOWN, True, T0)


def test_without_a_container_the_channel_and_message_are_used() -> None:
    event = button_vote(click("up", container={}), T0)

    assert event is not None
    assert (event.channel_id, event.message_ts, event.vote) == ("D1", "10.5", Vote.UP)


def test_clicks_that_are_not_votes_are_dropped() -> None:
    assert button_vote(click("maybe"), T0) is None
    assert button_vote(click("up", user={}), T0) is None
    no_message = click("up", container={}, message={}, channel={})
    assert button_vote(no_message, T0) is None


@pytest.mark.parametrize(
    "overrides",
    [
        {"actions": None},
        {"actions": []},
        {"actions": [None]},
        {"actions": "up"},
        {"container": "message"},
        {"user": "U1"},
        {"user": None},
        {"actions": [{"value": ["up"]}]},
    ],
    ids=[
        "null",
        "empty",
        "null-action",
        "string",
        "string-container",
        "string-user",
        "no-user",
        "list-value",
    ],
)
def test_malformed_clicks_cast_no_vote(overrides: dict[str, Any]) -> None:
    assert button_vote(click("up", **overrides), T0) is None


def reaction(**event: Any) -> dict[str, Any]:
    base = {
        "type": "reaction_added",
        "user": "U1",
        "reaction": "+1",
        "item": {"type": "message", "channel": "D1", "ts": "10.5"},
    }
    return {"type": "event_callback", "event": {**base, **event}}


def test_a_reaction_on_a_message_is_a_vote_and_its_removal_an_unvote() -> None:
    added = reaction_vote(added=True)(reaction(), T0)
    removed = reaction_vote(added=False)(reaction(reaction="-1::skin-tone-2"), T0)

    assert added is not None and removed is not None
    assert (added.channel_id, added.message_ts, added.voter_id) == ("D1", "10.5", "U1")
    assert (added.reaction, added.added, added.at) == ("+1", True, T0)
    assert (removed.reaction, removed.added) == ("-1::skin-tone-2", False)


@pytest.mark.parametrize(
    "event",
    [
        {"item": {"type": "file", "file": "F1"}},
        {"item": "D1"},
        {"item": None},
        {"item": {"type": "message", "channel": ["D1"], "ts": "10.5"}},
        {"user": {"id": "U1"}},
        {"user": ""},
        {"reaction": None},
    ],
    ids=[
        "file",
        "string-item",
        "null-item",
        "list-channel",
        "object-user",
        "no-user",
        "no-reaction",
    ],
)
def test_reactions_that_are_not_on_a_message_or_malformed_cast_no_vote(
    event: dict[str, Any],
) -> None:
    assert reaction_vote(added=True)(reaction(**event), T0) is None


def test_a_d_channel_is_a_dm_scope_and_anything_else_a_channel() -> None:
    assert conversation_scope("T1", "D0ALICE").kind is ConversationKind.DM
    assert conversation_scope("T1", "C0GENERAL").kind is ConversationKind.CHANNEL
    assert conversation_scope("T1", "G0PRIVATE") == Scope(
        team_id="T1", channel_id="G0PRIVATE", kind=ConversationKind.CHANNEL
    )


def episode(question: str, status: EpisodeStatus) -> Episode:
    return make_episode(question, status=status, scope=DM, created_at=T0)


def test_the_memory_message_has_a_text_fallback_and_valid_blocks() -> None:
    note = WisdomNote(
        id=2, scope=DM, user_id="U1", text="Likes brevity.", episode_count=2, created_at=T0
    )

    message = memory_message([episode("How do I restart search?", EpisodeStatus.FAILURE)], [note])

    assert message["text"].splitlines()[1:] == ["📝 Likes brevity.", "👎 How do I restart search?"]
    assert block_kit_problems(message["blocks"]) == []
    assert "react 👍 or 👎" in memory_summary([])
