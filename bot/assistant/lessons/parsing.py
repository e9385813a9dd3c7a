"""Turning a model's free-text reply into the value a learning protocol promises.

Models wrap answers in prose, code fences, bullets or ``<think>`` blocks; these parsers
accept all of that and raise :class:`UnusableReply` when nothing usable is left, so the
caller keeps the vote and retries later instead of storing nonsense.
"""

from __future__ import annotations

import json
import re

from memory.text import shorten

__all__ = [
    "MAX_LESSON_CHARS",
    "UnusableReply",
    "parse_importance",
    "parse_lesson",
    "parse_notes",
]

_THINKING = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*$", re.MULTILINE)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_LABEL = re.compile(r"^(?:lesson|reflection|answer)\s*:\s*", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")

MAX_LESSON_CHARS = 600


class UnusableReply(ValueError):
    """The model answered, but not with what was asked. The message never quotes the reply."""


def _visible(reply: str) -> str:
    """The reply without reasoning blocks and code fences."""
    return _FENCE.sub("", _THINKING.sub("", reply)).strip()


def parse_lesson(reply: str) -> str:
    """The lesson on one line, without a "Lesson:" label, at most ``MAX_LESSON_CHARS``."""
    lesson = _LABEL.sub("", " ".join(_visible(reply).split()))
    if not lesson:
        raise UnusableReply("the model returned an empty lesson")
    return shorten(lesson, MAX_LESSON_CHARS)


def parse_importance(reply: str) -> int:
    """The first number of the reply, rounded, which must lie in 1..10.

    A number outside the scale (or none) means the model misread the task, so the value
    says nothing about the episode: it is rejected rather than clamped, and the episode is
    scored again later.
    """
    match = _NUMBER.search(_visible(reply))
    if match is None:
        raise UnusableReply("the model's importance reply holds no number")
    value = round(float(match.group()))
    if not 1 <= value <= 10:
        raise UnusableReply("the model's importance is outside 1..10")
    return value


def parse_notes(reply: str) -> list[str]:
    """Notes from a JSON list of strings or, failing that, from bullet or plain lines.

    When some lines are bullets, only those count, so a preamble such as "Here are the
    notes:" is not taken for a note.
    """
    text = _visible(reply)
    notes = _json_notes(text)
    if notes is None:
        lines = [line for line in text.splitlines() if line.strip()]
        bullets = [line for line in lines if _BULLET.match(line)]
        notes = [_BULLET.sub("", line) for line in bullets or lines]
    notes = [" ".join(note.split()) for note in notes]
    notes = [note for note in notes if note]
    if not notes:
        raise UnusableReply("the model returned no notes")
    return notes


def _json_notes(text: str) -> list[str] | None:
    start, end = text.find("["), text.rfind("]")
    if start == -1 or end < start:
        return None
    try:
        value = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    return value
