"""The log's format: ``LOG_FORMAT=json`` lines (one JSON object a line, event fields at
the top level, redacted), and exceptions as their frames on one line, never their message."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import pytest

from bot.logging_setup import JsonFormatter, configure_logging, exception_trace
from bot.scheduler import Scheduler


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


SECRET = "xoxb-999-888-logfilter"
PERSON_TEXT = "my zebrafish password is hunter2"


def parse_the_answer(text: str) -> int:
    return int(text)  # a programming error: the text is not a number


def failing_with_people_s_text() -> ValueError:
    try:
        try:
            parse_the_answer(f"{PERSON_TEXT} {SECRET}")
        except ValueError as error:
            raise RuntimeError(f"could not read {PERSON_TEXT}") from error
    except RuntimeError as error:
        error.add_note(f"note: {SECRET}")
        return error
    raise AssertionError("unreachable")


def test_a_trace_keeps_every_frame_and_cause_and_no_message_on_one_line() -> None:
    trace = exception_trace(failing_with_people_s_text())

    assert "\n" not in trace
    assert "ValueError" in trace and "RuntimeError" in trace
    assert trace.index("ValueError") < trace.index("RuntimeError")
    assert "tests/test_log_format.py" in trace
    assert "tests/test_log_format.py:" in trace and " in parse_the_answer <- " in trace
    assert "int(text)" not in trace  # a line of source can hold a literal message
    assert "in failing_with_people_s_text" in trace
    assert PERSON_TEXT not in trace and "zebrafish" not in trace
    assert SECRET not in trace and "note:" not in trace


def test_an_exception_group_s_members_are_traced_too() -> None:
    try:
        raise ExceptionGroup(PERSON_TEXT, [failing_with_people_s_text()])
    except ExceptionGroup as group:
        trace = exception_trace(group)

    assert "ExceptionGroup" in trace and "in parse_the_answer" in trace
    assert PERSON_TEXT not in trace and SECRET not in trace


@pytest.mark.parametrize("log_format", ["text", "json"])
async def test_a_failing_background_job_logs_its_frames_never_its_message(
    log_format: str,
) -> None:
    """Through the handler the bot installs: a job raising with a secret and a person's
    words in its message logs where it failed, and neither of them."""
    stream = io.StringIO()
    handler = configure_logging("DEBUG", log_format, stream=stream)
    failed = asyncio.Event()

    async def broken() -> None:
        failed.set()
        raise failing_with_people_s_text()

    scheduler = Scheduler()
    scheduler.add("broken", broken, every_seconds=3600, at_start=True)
    try:
        scheduler.start()
        await asyncio.wait_for(failed.wait(), 5)
        await asyncio.sleep(0.05)
        await scheduler.stop()
    finally:
        logging.getLogger().removeHandler(handler)

    log = stream.getvalue()
    [line] = [line for line in log.splitlines() if "background job broken failed" in line]
    assert "in parse_the_answer" in line and "in failing_with_people_s_text" in line
    assert "bot/scheduler.py" in line and "RuntimeError" in line
    assert PERSON_TEXT not in log and "zebrafish" not in log and "hunter2" not in log
    assert "999-888" not in log and "note:" not in log


def test_any_logged_exception_keeps_its_frames_and_loses_its_message() -> None:
    stream = io.StringIO()
    handler = configure_logging("DEBUG", stream=stream)
    try:
        try:
            raise failing_with_people_s_text()
        except RuntimeError:
            logging.getLogger("bot.anything").exception("handling failed")
    finally:
        logging.getLogger().removeHandler(handler)

    log = stream.getvalue()
    assert len(log.splitlines()) == 1
    assert "handling failed (" in log and "in parse_the_answer" in log
    assert PERSON_TEXT not in log and "999-888" not in log and "note:" not in log
