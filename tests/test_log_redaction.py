"""Tokens and keys never reach the logs, tracebacks included."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable, Iterator

import pytest
from aiohttp.http_exceptions import BadHttpMessage

from bot.logging_setup import RedactingFormatter, configure_logging, redact


def test_slack_tokens_bearer_credentials_and_api_keys_are_redacted() -> None:
    text = "xoxb-123-456-abc xapp-1-A1-xyz Authorization: Bearer s3cr3t sk-abcdefghijkl"

    redacted = redact(text)

    for secret in ("xoxb-123", "xapp-1", "s3cr3t", "sk-abcdefghijkl"):
        assert secret not in redacted
    assert redacted.count("[redacted]") == 4


def test_the_formatter_redacts_messages_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter("%(message)s"))
    logger = logging.getLogger("test_log_redaction")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        try:
            raise RuntimeError("token xoxb-999-leaked")
        except RuntimeError:
            logger.exception("failed with %s", "xoxp-888-leaked")
    finally:
        logger.removeHandler(handler)

    output = stream.getvalue()
    assert "leaked" not in output.replace("[redacted]", "")
    assert "xox" not in output


@pytest.fixture
def logged() -> Iterator[Callable[[], str]]:
    """The real configuration (DEBUG, both guards) writing to a string; restored after."""
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    levels = {name: logging.getLogger(name).level for name in ("slack_bolt", "aiohttp")}
    configure_logging("DEBUG", "text", secrets=["the-signing-secret", "short"], stream=stream)
    logging.getLogger("slack_bolt.AsyncApp").setLevel(logging.DEBUG)  # as Bolt sets it
    try:
        yield stream.getvalue
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
        for name, old in levels.items():
            logging.getLogger(name).setLevel(old)
        logging.getLogger("slack_bolt.AsyncApp").setLevel(logging.NOTSET)


def test_third_party_records_below_warning_are_dropped_and_the_bots_own_kept(
    logged: Callable[[], str],
) -> None:
    logging.getLogger("slack_bolt.AsyncApp").debug("Sending a request - body: how do I deploy")
    logging.getLogger("bot.answering.service").debug("already handled Ev1")
    logging.getLogger("slack_bolt.AsyncApp").warning("Failed to acknowledge")

    output = logged()
    assert "how do I deploy" not in output
    assert "already handled Ev1" in output
    assert "Failed to acknowledge" in output


def test_an_exception_is_logged_as_its_class_and_frames_never_its_message(
    logged: Callable[[], str],
) -> None:
    try:
        {"question": "what is the staging password"}["answer"]
    except KeyError:
        logging.getLogger("bot.listeners").exception("listener failed")
    try:
        raise ValueError("the prompt: what is the staging password")
    except ValueError:
        logging.getLogger("slack_sdk.socket_mode").error("failed", exc_info=True)

    lines = logged().splitlines()
    assert len(lines) == 2
    assert re.search(
        r"listener failed \(KeyError \(message withheld\) at tests/test_log_redaction.py:"
        r"\d+ in test_an_exception_is_logged_as_its_class_and_frames_never_its_message\)$",
        lines[0],
    )
    assert "ValueError (message withheld) at tests/test_log_redaction.py:" in lines[1]
    assert "staging password" not in "\n".join(lines)
    assert "Traceback" not in "\n".join(lines)


def test_aiohttps_complaint_about_a_malformed_request_is_one_warning_line(
    logged: Callable[[], str],
) -> None:
    try:
        raise BadHttpMessage("Invalid header value char: b'secret\\x01'")
    except BadHttpMessage as error:
        logging.getLogger("aiohttp.server").exception(
            "Error handling request from %s", "127.0.0.1", exc_info=error
        )

    [line] = logged().splitlines()
    assert " WARNING aiohttp.server: rejected a malformed HTTP request (BadHttpMessage)" in line


def test_configured_secrets_are_redacted_but_not_short_words(logged: Callable[[], str]) -> None:
    logging.getLogger("bot.server").info("signing with the-signing-secret, in short")

    output = logged()
    assert "the-signing-secret" not in output
    assert "[redacted], in short" in output


def test_a_record_whose_arguments_do_not_fit_its_message_is_still_one_line(
    logged: Callable[[], str],
) -> None:
    try:
        raise OSError("connection reset")
    except OSError:
        logging.getLogger("asyncio").error("Task %s failed: %s", "only-one", exc_info=True)

    [line] = logged().splitlines()
    assert "Task %s failed: %s (OSError (message withheld) at tests/test_log_redaction.py:" in line
