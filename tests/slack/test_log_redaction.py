"""Tokens and keys never reach the logs, tracebacks included."""

from __future__ import annotations

import io
import logging

from bot.logging_setup import RedactingFormatter, redact


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
