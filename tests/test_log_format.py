"""``LOG_FORMAT=json``: one JSON object a line, event fields at the top level, redacted."""

from __future__ import annotations

import json
import logging

from bot.logging_setup import JsonFormatter


def record(
    message: str, *args: object, event: dict[str, object] | None = None
) -> logging.LogRecord:
    made = logging.LogRecord("bot.events", logging.INFO, __file__, 1, message, args, None)
    if event is not None:
        made.event = event
    return made


def test_an_event_line_is_one_json_object_with_its_fields_at_the_top() -> None:
    fields = {"kind": "answer", "outcome": "answered", "channel": "D1", "model_ms": 12.5}

    line = JsonFormatter().format(record("event %s", "kind=answer", event=fields))

    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["level"] == "INFO"
    assert parsed["logger"] == "bot.events"
    assert parsed["message"] == "event kind=answer"
    assert {name: parsed[name] for name in fields} == fields
    assert parsed["time"].endswith("+00:00")


def test_json_lines_are_redacted_like_text_lines() -> None:
    line = JsonFormatter().format(record("token %s", "xoxb-123-456-abcdef"))

    assert "xoxb-123" not in line
    assert json.loads(line)["message"] == "token [redacted]"


def test_an_event_field_cannot_overwrite_the_standard_ones() -> None:
    line = JsonFormatter().format(record("event", event={"level": "spoofed", "kind": "vote"}))

    parsed = json.loads(line)
    assert parsed["level"] == "INFO"
    assert parsed["kind"] == "vote"
