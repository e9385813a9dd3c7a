"""A Slack thread as the model's conversation: roles, voices, order and budget."""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime

from bot.agent.messages import Message, Role
from bot.answering import BotIdentity, thread_history
from bot.slack.streaming import THINKING_PLACEHOLDER

BOT = BotIdentity(user_id="U0000BOT", bot_id="B0000BOT", team_id="T1")


def msg(ts: str, text: str, user: str = "U1", **extra: str) -> dict[str, str]:
    return {"ts": ts, "text": text, "user": user, **extra}


def answer(ts: str, text: str) -> dict[str, str]:
    """A message the bot posted."""
    return msg(ts, text, user="U0000BOT", bot_id="B0000BOT")


def history(
    thread: list[dict[str, str]],
    *,
    before_ts: str,
    requester_id: str = "U1",
    token_budget: int = 1000,
    forgotten: dict[str, datetime] | None = None,
    erased_replies: Collection[str] = (),
) -> list[Message]:
    return thread_history(
        thread,
        identity=BOT,
        requester_id=requester_id,
        before_ts=before_ts,
        token_budget=token_budget,
        forgotten=forgotten or {},
        erased_replies=erased_replies,
    )


def test_the_bots_messages_are_assistant_turns_and_others_are_named() -> None:
    thread = [
        msg("1.0", "<@U0000BOT> first question"),
        answer("2.0", "first answer"),
        msg("3.0", "I disagree", user="U2"),
        msg("4.0", "the current question"),
    ]

    turns = history(thread, before_ts="4.0")

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

    turns = history(thread, before_ts="4.0")

    assert [t.content for t in turns] == ["question"]


def test_the_most_recent_messages_are_kept_within_the_budget() -> None:
    thread = [msg(f"{n}.0", f"message {n} " + "x" * 36) for n in range(1, 11)]

    turns = history(thread, before_ts="11.0", token_budget=36)

    assert [t.content.split()[1] for t in turns] == ["8", "9", "10"]


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def test_what_a_forgotten_person_said_before_forget_and_the_replies_to_it_are_left_out() -> None:
    thread = [
        msg("1.0", "<@U0000BOT> my secret question"),
        answer("2.0", "an answer quoting the secret"),
        msg("3.0", "Bob's question", user="U2"),
        answer("4.0", "the answer to Bob"),
        msg("5.0", "another secret, in flight at /forget"),
        answer("7.0", "its answer, posted after /forget"),
        msg("8.0", "asked after /forget"),
        answer("9.0", "answered after /forget"),
        msg("10.0", "the current question"),
    ]

    turns = history(thread, before_ts="10.0", requester_id="U2", forgotten={"U1": at(6.0)})

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
        answer("3.0", "the answer to Alice, quoting it"),
        answer("4.0", "the answer to Bob"),
    ]

    turns = history(
        thread,
        before_ts="9.0",
        requester_id="U3",
        forgotten={"U1": at(5.0)},
        erased_replies={"3.0"},
    )

    assert [t.content for t in turns] == ["<@U2>: Bob asks too", "the answer to Bob"]
