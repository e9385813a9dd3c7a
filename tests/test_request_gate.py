"""The gate in front of Bolt: what Slack sends passes; anything else is named by field."""

from __future__ import annotations

from typing import Any

import pytest

from bot.request_gate import payload_kind, payload_problem, signature_headers_problem

SIGNATURE = "v0=" + "a" * 64
TEXT = "the staging password is hunter2"


def event_callback(**event: Any) -> dict[str, Any]:
    return {
        "type": "event_callback",
        "team_id": "T1",
        "event_id": "Ev1",
        "authorizations": [{"enterprise_id": None, "team_id": "T1", "user_id": "UBOT"}],
        "event": {"type": "message", "user": "U1", "channel": "D1", "text": TEXT, "ts": "1.2"}
        | event,
    }


def block_actions(**overrides: Any) -> dict[str, Any]:
    return {
        "type": "block_actions",
        "user": {"id": "U1", "team_id": "T1"},
        "team": {"id": "T1", "domain": "x"},
        "channel": {"id": "D1", "name": "directmessage"},
        "container": {"type": "message", "channel_id": "D1", "message_ts": "1.2"},
        "message": {"type": "message", "user": "UBOT", "ts": "1.2", "text": TEXT},
        "actions": [{"action_id": "answer_feedback", "type": "feedback_buttons", "value": "up"}],
        "response_url": "https://hooks.slack.com/actions/T1/1/x",
        **overrides,
    }


@pytest.mark.parametrize(
    "body",
    [
        event_callback(),
        event_callback(type="reaction_added", item={"type": "message", "channel": "D1", "ts": "1"}),
        event_callback(type="app_home_opened", tab="home", view={"id": "V1"}),
        event_callback(subtype="message_changed", message={"user": "U1", "text": TEXT}),
        event_callback(
            type="assistant_thread_started",
            assistant_thread={"user_id": "U1", "channel_id": "D1", "context": {}},
        ),
        block_actions(),
        {"command": "/memory", "team_id": "T1", "user_id": "U1", "channel_id": "D1", "text": ""},
        {"type": "url_verification", "challenge": "abc", "token": "t"},
        {"ssl_check": "1", "token": "t"},
    ],
    ids=["dm", "reaction", "home", "edit", "assistant", "click", "command", "url", "ssl"],
)
def test_what_slack_sends_passes(body: dict[str, Any]) -> None:
    assert payload_problem(body) is None


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ([], "empty or non-object body"),
        ({"type": {"x": 1}}, "payload without a type"),
        ({"type": "team_join"}, "unknown payload type"),
        (event_callback(user=["U1"]), "malformed event_callback payload (event.user)"),
        (block_actions(actions=None), "malformed block_actions payload (actions)"),
        (block_actions(actions=[None]), "malformed block_actions payload (actions.0)"),
        (
            block_actions(actions=[{"value": TEXT}]),
            "malformed block_actions payload (actions.0.action_id)",
        ),
        (block_actions(view=TEXT), "malformed block_actions payload (view)"),
        (
            {"type": "view_submission", "user": {"id": "U1"}, "view": None},
            "malformed view_submission payload (view)",
        ),
        (
            {"command": "/memory", "user_id": "U1", "channel_id": "D1", "text": TEXT},
            "malformed slash command payload (team_id)",
        ),
    ],
    ids=[
        "list",
        "type-object",
        "unknown",
        "user-list",
        "actions-null",
        "action-null",
        "no-action-id",
        "view-string",
        "view-null",
        "no-team",
    ],
)
def test_anything_else_is_named_by_its_fields_never_its_content(body: object, problem: str) -> None:
    assert payload_problem(body) == problem
    assert TEXT not in problem
    assert payload_kind(body) in {
        "non-object",
        "unknown",
        "event_callback",
        "block_actions",
        "view_submission",
        "slash command",
    }


@pytest.mark.parametrize(
    ("timestamp", "signature", "ok"),
    [
        ("1700000000", SIGNATURE, True),
        (None, SIGNATURE, False),
        ("1700000000", None, False),
        ("١٧٠٠", SIGNATURE, False),
        ("9" * 40, SIGNATURE, False),
        ("1700000000", "v0=" + "é" * 64, False),
        ("1700000000", "v1=" + "a" * 64, False),
        ("1700000000", SIGNATURE.upper(), False),
    ],
)
def test_signature_headers_must_look_like_slacks_before_any_hmac(
    timestamp: str | None, signature: str | None, ok: bool
) -> None:
    assert (signature_headers_problem(timestamp, signature) is None) is ok
