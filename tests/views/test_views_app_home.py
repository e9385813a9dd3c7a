"""The Home tab: all of the viewer's memories, by conversation, within Slack's limits."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.views.app_home import FORGET_EVERYTHING_ACTION_ID, home_view
from memory import ConversationKind, EpisodeStatus, Scope
from tests.episodes import CHANNEL
from tests.support.block_kit import block_kit_problems
from tests.views.views_support import episode, note


def all_text(view: dict) -> str:
    return "\n".join(
        block["text"]["text"] for block in view["blocks"] if block["type"] == "section"
    )


def test_an_empty_home_has_no_forget_everything_button() -> None:
    view = home_view([], [])

    assert view["type"] == "home"
    assert block_kit_problems(view["blocks"]) == []
    assert all(block["type"] != "actions" for block in view["blocks"])


def test_items_are_grouped_by_conversation() -> None:
    view = home_view(
        [
            episode(1, "dm question one"),
            episode(2, "channel question", scope=CHANNEL),
            episode(3, "dm question two", status=EpisodeStatus.FAILURE, lesson="be brief"),
        ],
        [note(5, "channel note", scope=CHANNEL)],
    )

    sections = [b["text"]["text"] for b in view["blocks"] if b["type"] == "section"]
    dm_at = sections.index("*Our direct messages*")
    channel_at = sections.index(f"*In <#{CHANNEL.channel_id}>*")
    assert "dm question one" in sections[dm_at + 1]
    assert "dm question two" in sections[dm_at + 2]
    assert "channel note" in sections[channel_at + 1]
    assert "channel question" in sections[channel_at + 2]
    assert block_kit_problems(view["blocks"]) == []


def test_forget_everything_asks_for_confirmation() -> None:
    view = home_view([episode(1)], [])

    [actions] = [b for b in view["blocks"] if b["type"] == "actions"]
    [button] = actions["elements"]
    assert button["action_id"] == FORGET_EVERYTHING_ACTION_ID
    assert button["confirm"]["title"]["text"] == "Forget everything?"
    assert button["confirm"]["deny"]["text"]


@settings(max_examples=30, deadline=None)
@given(
    conversations=st.integers(min_value=1, max_value=40),
    per_conversation=st.integers(min_value=1, max_value=30),
    text=st.text(min_size=1, max_size=5000),
)
def test_any_amount_of_memory_fits_in_one_valid_view(
    conversations: int, per_conversation: int, text: str
) -> None:
    scopes = [
        Scope(team_id="T1", channel_id=f"C{n:04d}", kind=ConversationKind.CHANNEL)
        for n in range(conversations)
    ]
    episodes = [
        episode(n * 100 + k, text, answer=text, lesson=text, scope=scope)
        for n, scope in enumerate(scopes)
        for k in range(per_conversation)
    ]

    view = home_view(episodes, [note(1, text, scope=scopes[0])])

    assert block_kit_problems(view["blocks"]) == []
    shown = sum(1 for b in view["blocks"] if b.get("accessory"))
    hidden_note = [
        e["text"] for b in view["blocks"] if b["type"] == "context" for e in b["elements"]
    ]
    total = len(episodes) + 1
    if shown < total:
        assert hidden_note[-1] == f"…and {total - shown} more not shown here."
    else:
        assert shown == total
