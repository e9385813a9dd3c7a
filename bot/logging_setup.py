"""Logging for the bot process: one line per record (plain text, or JSON with
``LOG_FORMAT=json``), with no secret and nothing a person wrote in it, at any level.

Two guards sit on the one handler, so they cover every logger, third-party ones included:

- :class:`LogHygiene` drops everything below WARNING that does not come from the bot's
  own code (``bot``, ``memory``): at DEBUG, ``slack_bolt.AsyncApp`` logs every Web API
  body and ``slack_sdk`` every request, questions and answers included. It also turns
  every exception into its traceback on one line (:func:`exception_trace`: each frame's
  file, line and function, through its causes), never its message, notes or
  locals (an exception's message can quote a payload, a prompt or a header), and logs
  aiohttp's complaint about a malformed HTTP request as one WARNING line.
- The formatters (:class:`RedactingFormatter`, :class:`JsonFormatter`) replace Slack
  tokens, bearer credentials, API keys and the configured secrets wherever they appear in
  the formatted line.

The bot's own log calls never pass message text (tests run real conversations at DEBUG
and search the log for it).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import traceback
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from aiohttp.http_exceptions import HttpProcessingError

__all__ = [
    "JsonFormatter",
    "LogHygiene",
    "RedactingFormatter",
    "causes",
    "configure_logging",
    "exception_trace",
    "redact",
]

SECRET_PATTERNS = re.compile(
    r"xox[abposre]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|sk-[A-Za-z0-9_-]{8,}|(?<=Bearer )[^\s'\"]+"
)
REDACTED = "[redacted]"
OWN_LOGGERS = frozenset({"bot", "memory", "__main__"})
QUIET_LOGGERS = ("aiohttp.access", "httpx", "httpcore", "slack_sdk", "slack_bolt")
"""Set to WARNING so their records are not even built (Bolt resets its own app logger to
the root level when an app is created; :class:`LogHygiene` drops those records)."""
_PROJECT_ROOT = Path(__file__).resolve().parents[1]


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with Slack tokens, bearer credentials, API keys and ``secrets`` replaced."""
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return SECRET_PATTERNS.sub(REDACTED, text)


def _short_path(filename: str) -> str:
    path = Path(filename)
    if path.is_relative_to(_PROJECT_ROOT):
        return str(path.relative_to(_PROJECT_ROOT))
    parts = path.parts
    if "site-packages" in parts:
        return "/".join(parts[parts.index("site-packages") + 1 :])
    return path.name


def exception_trace(error: BaseException) -> str:
    """``error``'s traceback on one line, through its causes (and an exception group's
    members): each exception's class and every frame's file, line and function; never a
    message, a note, a local or a line of source (which can hold a literal message), as
    any of them can quote what people wrote or a secret."""
    return " | which caused | ".join(_frames(cause) for cause in reversed(causes(error)))


def causes(error: BaseException) -> list[BaseException]:
    """``error``, then what it was raised from or while handling, down to the operating
    system's error: httpx's error wraps httpcore's, which hides (``from None``) anyio's
    "all connection attempts failed", which wraps the refusal."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _frames(error: BaseException) -> str:
    """``KeyError (message withheld) at bot/a.py:9 in inner <- bot/b.py:4 in outer``:
    the class, then each frame's file, line and function, innermost first."""
    kind = type(error)
    module = "" if kind.__module__ == "builtins" else f"{kind.__module__}."
    described = f"{module}{kind.__qualname__} (message withheld)"
    frames = [
        f"{_short_path(frame.filename)}:{frame.lineno} in {frame.name}"
        for frame in reversed(traceback.extract_tb(error.__traceback__))
    ]
    if frames:
        described += f" at {' <- '.join(frames)}"
    if isinstance(error, BaseExceptionGroup):
        members = "; ".join(exception_trace(member) for member in error.exceptions)
        described += f" [members: {members}]"
    return described


def _own(name: str) -> bool:
    return name.split(".", 1)[0] in OWN_LOGGERS


def _message(record: logging.LogRecord) -> str:
    """The record's message; a filter must not raise, even on a library's bad arguments."""
    try:
        return record.getMessage()
    except (TypeError, ValueError):
        return str(record.msg)


class LogHygiene(logging.Filter):
    """Keeps third-party chatter and exception details out of the log (see the module)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING and not _own(record.name):
            return False
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            if record.name == "aiohttp.server" and isinstance(error, HttpProcessingError):
                record.msg, record.args = (
                    "rejected a malformed HTTP request (%s)",
                    (type(error).__name__,),
                )
                record.levelno, record.levelname = logging.WARNING, "WARNING"
            else:
                record.msg = f"{_message(record)} ({exception_trace(error)})"
                record.args = None
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


class RedactingFormatter(logging.Formatter):
    """Redacts the whole formatted record: known token shapes and the given secrets."""

    def __init__(self, fmt: str, *, secrets: Iterable[str] = ()) -> None:
        super().__init__(fmt)
        self._secrets = tuple(secret for secret in secrets if len(secret) >= 8)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record), self._secrets)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time``, ``level``, ``logger``, ``message``, plus the fields
    of an event line (``extra={"event": {...}}``) at the top level; redacted like the text."""

    def __init__(self, *, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._secrets = tuple(secret for secret in secrets if len(secret) >= 8)

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
        return redact(json.dumps(entry, ensure_ascii=False), self._secrets)


def configure_logging(
    level: str = "INFO",
    log_format: str = "text",
    *,
    secrets: Iterable[str] = (),
    stream: TextIO | None = None,
) -> logging.Handler:
    """Log to ``stream`` (stderr) at ``level``, as text or ``json``, through both guards;
    returns the handler.

    ``secrets`` are values never to print (the tokens and the signing secret); values
    shorter than 8 characters are left alone, as they would redact ordinary words."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(
        JsonFormatter(secrets=secrets)
        if log_format == "json"
        else RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", secrets=secrets)
    )
    handler.addFilter(LogHygiene())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    return handler
