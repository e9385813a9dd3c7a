"""Logging for the bot process: one plain line per record, secrets redacted."""

from __future__ import annotations

import logging
import re
import sys

__all__ = ["RedactingFormatter", "configure_logging", "redact"]

SECRET_PATTERNS = re.compile(
    r"xox[abposre]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|sk-[A-Za-z0-9_-]{8,}|(?<=Bearer )[^\s'\"]+"
)
REDACTED = "[redacted]"
QUIET_LOGGERS = ("aiohttp.access", "httpx", "httpcore", "slack_sdk", "slack_bolt")


def redact(text: str) -> str:
    """``text`` with Slack tokens, bearer credentials and API keys replaced."""
    return SECRET_PATTERNS.sub(REDACTED, text)


class RedactingFormatter(logging.Formatter):
    """Redacts the whole formatted record, tracebacks included."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def configure_logging(level: str = "INFO") -> None:
    """Log to stderr at ``level``; libraries that echo requests stay at WARNING or above."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
