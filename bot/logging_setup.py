"""Logging for the bot process: one line per record (plain text, or JSON with
``LOG_FORMAT=json``), secrets redacted."""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime

__all__ = ["JsonFormatter", "RedactingFormatter", "configure_logging", "redact"]

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


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time``, ``level``, ``logger``, ``message``, plus the fields
    of an event line (``extra={"event": {...}}``) at the top level; redacted like the text."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        event = getattr(record, "event", None)
        if isinstance(event, dict):
            entry |= {name: value for name, value in event.items() if name not in entry}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return redact(json.dumps(entry, ensure_ascii=False))


def configure_logging(level: str = "INFO", log_format: str = "text") -> None:
    """Log to stderr at ``level``, as text or ``json``; libraries that echo requests stay at
    WARNING or above."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter()
        if log_format == "json"
        else RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
