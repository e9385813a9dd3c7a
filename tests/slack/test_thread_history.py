"""A Slack thread as the model's conversation: roles, voices, order and budget."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.agent.messages import Role
from bot.answering import BotIdentity, thread_history
from bot.slack.streaming import THINKING_PLACEHOLDER

BOT = BotIdentity(user_id="U0000BOT", bot_id="B0000BOT", team_id="T1")


def msg(ts: str, text: str, user: str = "U1", **extra: str) -> dict[str, str]:
    return {"ts": ts, "text": text, "user": user, **extra}


def test_the_bots_messages_are_assistant_turns_and_others_are_named() -> None:
    thread = [
        msg("1.0", "<@U0000BOT> first question"),
        msg("2.0", "first answer", user="U0000BOT", bot_id="B0000BOT"),
        msg("3.0", "I disagree", user="U2"),
        msg("4.0", "the current question"),
    ]

    turns = thread_history(
        thread,
        identity=BOT,
        requester_id="U1",
        before_ts="4.0",
        token_budget=1000,
        forgotten={},
        erased_replies=(),
    )

    assert [(t.role, t.content) for t in turns] == [
        (Role.USER, "first question"),
        (Role.ASSISTANT, "first answer"),
        (Role.USER, "<@U2>: I disagree"),
    ]


def test_placeholders_empty_and_later_messages_are_left_out() -> None:
    thread = [
        msg("1.0", "question"),
        msg("2.0", THINKING_PLACEHOLDER, user="U0000BOT"),
        msg("3.0", "   "),
        msg("5.0", "written after the current message"),
    ]

    turns = thread_history(
        thread,
        identity=BOT,
        requester_id="U1",
        before_ts="4.0",
        token_budget=1000,
        forgotten={},
        erased_replies=(),
    )

    assert [t.content for t in turns] == ["question"]


def test_the_most_recent_messages_are_kept_within_the_budget() -> None:
    thread = [msg(f"{n}.0", f"message {n} " + "x" * 36) for n in range(1, 11)]

    turns = thread_history(
        thread,
        identity=BOT,
        requester_id="U1",
        before_ts="11.0",
        token_budget=36,
        forgotten={},
        erased_replies=(),
    )

    assert [t.content.split()[1] for t in turns] == ["8", "9", "10"]


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def test_what_a_forgotten_person_said_before_forget_and_the_replies_to_it_are_left_out() -> None:
    thread = [
        msg("1.0", "<@U0000BOT> my secret question"),
        msg("2.0", "an answer quoting the secret", user="U0000BOT", bot_id="B0000BOT"),
        msg("3.0", "Bob's question", user="U2"),
        msg("4.0", "the answer to Bob", user="U0000BOT", bot_id="B0000BOT"),
        msg("5.0", "another secret, in flight at /forget"),
        msg("7.0", "its answer, posted after /forget", user="U0000BOT", bot_id="B0000BOT"),
        msg("8.0", "asked after /forget"),
        msg("9.0", "answered after /forget", user="U0000BOT", bot_id="B0000BOT"),
        msg("10.0", "the current question"),
    ]

    turns = thread_history(
        thread,
        identity=BOT,
        requester_id="U2",
        before_ts="10.0",
        token_budget=1000,
        forgotten={"U1": at(6.0)},
        erased_replies=(),
    )

    assert [t.content for t in turns] == [
        "Bob's question",
        "the answer to Bob",
        "<@U1>: asked after /forget",
        "answered after /forget",
    ]
    assert "secret" not in " ".join(t.content for t in turns)


def test_a_reply_the_store_knows_answered_someone_forgotten_is_left_out_wherever_it_is() -> None:
    thread = [
        msg("1.0", "<@U0000BOT> Alice's secret question"),
        msg("2.0", "Bob asks too", user="U2"),
        msg("3.0", "the answer to Alice, quoting it", user="U0000BOT", bot_id="B0000BOT"),
        msg("4.0", "the answer to Bob", user="U0000BOT", bot_id="B0000BOT"),
    ]

    turns = thread_history(
        thread,
        identity=BOT,
        requester_id="U3",
        before_ts="9.0",
        token_budget=1000,
        forgotten={"U1": at(5.0)},
        erased_replies={"3.0"},
    )

    assert [t.content for t in turns] == ["<@U2>: Bob asks too", "the answer to Bob"]
