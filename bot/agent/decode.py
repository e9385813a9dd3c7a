"""Decoding what the model wrote into typed values: success, feedback or error.

Feedback is not an error: it is the normal refinement step of the loop, sent
back to the model as a value. Only an error ends the turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from bot.agent.messages import ToolCall

__all__ = [
    "DecodeResult",
    "decode_arguments",
    "describe_validation_error",
    "may_be_text_tool_call",
    "text_tool_call",
]

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

_MAX_REPORTED_ERRORS = 3


class _State(Enum):
    SUCCESS = "success"
    FEEDBACK = "feedback"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class DecodeResult(Generic[T]):
    """The outcome of decoding a model's output: exactly one of three states.

    Build one with :meth:`success`, :meth:`feedback` or :meth:`error`; read ``value`` only
    on success, ``message`` only on feedback, ``err`` only on error.
    """

    state: _State
    value: T | None = None
    message: str = ""
    err: BaseException | None = None

    @classmethod
    def success(cls, value: T) -> DecodeResult[T]:
        return cls(state=_State.SUCCESS, value=value)

    @classmethod
    def feedback(cls, message: str) -> DecodeResult[T]:
        """What the model should fix; it gets another attempt."""
        return cls(state=_State.FEEDBACK, message=message)

    @classmethod
    def error(cls, err: BaseException) -> DecodeResult[T]:
        """An unrecoverable failure: the turn ends."""
        return cls(state=_State.ERROR, err=err)

    @property
    def is_success(self) -> bool:
        return self.state is _State.SUCCESS

    @property
    def is_feedback(self) -> bool:
        return self.state is _State.FEEDBACK

    @property
    def is_error(self) -> bool:
        return self.state is _State.ERROR


def describe_validation_error(error: ValidationError) -> str:
    """A few ``field: problem`` lines a model (or a person) can act on; no stack trace."""
    lines = []
    for item in error.errors()[:_MAX_REPORTED_ERRORS]:
        location = ".".join(str(part) for part in item["loc"]) or "(root)"
        lines.append(f"`{location}`: {item['msg']}")
    extra = error.error_count() - _MAX_REPORTED_ERRORS
    if extra > 0:
        lines.append(f"and {extra} more problem(s)")
    return "; ".join(lines)


def decode_arguments(raw: str, model: type[M]) -> DecodeResult[M]:
    """Decode a tool call's raw ``arguments`` into the tool's input model.

    Malformed JSON, a non-object and a schema mismatch are feedback for the model; an
    exception raised by the model's own validators (a bug, not a bad argument) is an error.
    """
    text = raw.strip() or "{}"
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return DecodeResult.feedback(
            f"The arguments are not valid JSON ({exc.msg} at position {exc.pos}). "
            "Send one JSON object that matches the tool's parameters."
        )
    if not isinstance(parsed, dict):
        return DecodeResult.feedback(
            f"The arguments must be a JSON object, not {type(parsed).__name__}. "
            "Send one JSON object that matches the tool's parameters."
        )
    try:
        value = model.model_validate(parsed)
    except ValidationError as exc:
        return DecodeResult.feedback(
            f"The arguments do not match the tool's parameters: {describe_validation_error(exc)}. "
            "Fix them and call the tool again."
        )
    except Exception as exc:  # a validator bug: retrying cannot help
        return DecodeResult.error(exc)
    return DecodeResult.success(value)


_WRAPPED = re.compile(
    r"\A\s*(?:<tool_call>\s*)?(?:```[A-Za-z]*\s*)?"
    r"(?P<body>\{.*\})"
    r"\s*(?:```\s*)?(?:</tool_call>\s*)?\Z",
    re.DOTALL,
)
_ARGUMENT_KEYS = ("arguments", "parameters")


def text_tool_call(text: str, tools: Collection[str], *, call_id: str) -> ToolCall | None:
    """The tool call a reply wrote as text instead of making it, if it is only that.

    A small model sometimes answers with ``{"name": "lookup_user", "arguments": {...}}``
    as its text (bare, in a code fence or in ``<tool_call>`` tags) rather than as a call;
    sent to the person it is no answer at all. A reply that is one JSON object naming one
    of ``tools``, with an ``arguments`` (or ``parameters``) object or JSON text, is that
    call; anything else (text around it, an unknown name) is not.
    """
    matched = _WRAPPED.match(text)
    if matched is None:
        return None
    try:
        parsed = json.loads(matched["body"])
    except json.JSONDecodeError:
        return None
    if not isinstance(parsed, dict) or parsed.get("name") not in tools:
        return None
    if set(parsed) - {"name", *_ARGUMENT_KEYS}:
        return None
    arguments = next((parsed[key] for key in _ARGUMENT_KEYS if key in parsed), {})
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments)
    if not isinstance(arguments, str):
        return None
    return ToolCall(id=call_id, name=parsed["name"], arguments=arguments)


def may_be_text_tool_call(start: str) -> bool:
    """Whether a reply that starts so could still turn out to be a tool call written as
    text (see :func:`text_tool_call`): it opens with a brace, a code fence or a tag."""
    return start.lstrip()[:1] in ("{", "`", "<")
