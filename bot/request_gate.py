"""What reaches Bolt: the shape of the signature headers and of every Slack payload the
bot accepts, checked before dispatch.

Bolt assumes a well-formed payload: its context extraction, matchers and built-in
middleware index into it freely, and answer 500 (or raise) on ``"actions": null``, a
``type`` that is an object, a ``view`` that is a string, a signature that is not ASCII.
So the server checks, with pydantic models of only the fields Bolt and the listeners
read, that a payload is one Slack could have sent, and refuses anything else with a 400.
A problem is described by field names only, never by what the request contained.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = ["INTERACTIVE_TYPES", "payload_kind", "payload_problem", "signature_headers_problem"]

SIGNATURE = re.compile(r"v0=[0-9a-f]{64}", re.ASCII)
TIMESTAMP = re.compile(r"[0-9]{1,12}", re.ASCII)
INTERACTIVE_TYPES = frozenset(
    {
        "block_actions",
        "block_suggestion",
        "message_action",
        "shortcut",
        "view_closed",
        "view_submission",
    }
)


def signature_headers_problem(timestamp: str | None, signature: str | None) -> str | None:
    """Why the signature headers cannot be a Slack signature (before any HMAC), or None."""
    if timestamp is None or TIMESTAMP.fullmatch(timestamp) is None:
        return "missing or malformed X-Slack-Request-Timestamp"
    if signature is None or SIGNATURE.fullmatch(signature) is None:
        return "missing or malformed X-Slack-Signature"
    return None


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow")


class _IdObject(_Model):
    """A team, user, channel or enterprise given as an object."""

    id: str | None = None
    team_id: str | None = None
    enterprise_id: str | None = None


class _Ids(_Model):
    """The fields Bolt reads to build a request's context, wherever it looks for them."""

    enterprise: str | _IdObject | None = None
    enterprise_id: str | None = None
    team: str | _IdObject | None = None
    team_id: str | None = None
    user: str | _IdObject | None = None
    user_id: str | None = None
    channel: str | _IdObject | None = None
    channel_id: str | None = None
    thread_ts: str | None = None
    is_enterprise_install: bool | str | None = None
    authorizations: list[_Ids] | None = None
    message: _Ids | None = None
    previous_message: _Ids | None = None
    item: _Ids | None = None
    assistant_thread: _Ids | None = None
    function_execution_id: str | None = None
    function_data: dict[str, Any] | None = None
    bot_access_token: str | None = None
    response_url: str | None = None


class _Event(_Ids):
    """An Events API ``event``: every event the app subscribes to names its person and
    conversation by id strings."""

    type: str
    subtype: str | None = None
    user: str | None = None
    channel: str | None = None
    channel_type: str | None = None
    user_team: str | None = None
    bot_id: str | None = None
    text: str | None = None
    ts: str | None = None
    tab: str | None = None


class _EventCallback(_Ids):
    type: str
    event: _Event
    event_id: str | None = None
    is_ext_shared_channel: bool | None = None


class _UrlVerification(_Model):
    challenge: str = Field(min_length=1)


class _Action(_Model):
    action_id: str
    block_id: str | None = None
    type: str | None = None
    value: str | None = None


class _Container(_Model):
    type: str | None = None
    channel_id: str | None = None
    message_ts: str | None = None


class _View(_Ids):
    id: str | None = None
    type: str | None = None
    callback_id: str | None = None
    app_installed_team_id: str | None = None


class _Interactive(_Ids):
    """Interactivity payloads (shortcuts, views...): ids, plus a view that is an object."""

    type: str
    team: _IdObject | None = None
    user: _IdObject | None = None
    channel: _IdObject | None = None
    container: _Container | None = None
    view: _View | None = None
    callback_id: str | None = None
    response_urls: list[_Model] | None = None

    @field_validator("view", mode="before")
    @classmethod
    def _view_is_an_object(cls, value: object) -> object:
        if value is None:  # Bolt looks inside a view whenever the key is there
            raise ValueError("a view, when given, is an object")
        return value


class _BlockActions(_Interactive):
    user: _IdObject
    actions: list[_Action] = Field(min_length=1)


class _SlashCommand(_Model):
    command: str = Field(min_length=1)
    team_id: str = Field(min_length=1)
    user_id: str = Field(min_length=1)
    channel_id: str = Field(min_length=1)
    text: str = ""
    response_url: str | None = None


_BY_TYPE: dict[str, type[BaseModel]] = {
    "event_callback": _EventCallback,
    "url_verification": _UrlVerification,
    "block_actions": _BlockActions,
    **{kind: _Interactive for kind in INTERACTIVE_TYPES - {"block_actions"}},
}


def _fields(error: ValidationError) -> str:
    """The malformed fields' paths (our model's field names and list indices only)."""
    paths = {".".join(str(part) for part in item["loc"][:4]) for item in error.errors()}
    return ", ".join(sorted(paths)[:3])


def payload_kind(body: object) -> str:
    """What kind of payload ``body`` is, for a log line: one of a fixed set of names."""
    if not isinstance(body, dict):
        return "non-object"
    if "command" in body:
        return "slash command"
    kind = body.get("type")
    return kind if isinstance(kind, str) and kind in _BY_TYPE else "unknown"


def payload_problem(body: object) -> str | None:
    """Why ``body`` (as Bolt parsed it) is not a Slack payload we handle, or None."""
    if not isinstance(body, dict) or not body:
        return "empty or non-object body"
    if body.get("ssl_check") == "1":
        return None
    if "command" in body:
        kind, model = "slash command", _SlashCommand
    else:
        kind = body.get("type")
        if not isinstance(kind, str):
            return "payload without a type"
        found = _BY_TYPE.get(kind)
        if found is None:
            return "unknown payload type"
        model = found
    try:
        model.model_validate(body)
    except ValidationError as error:
        return f"malformed {kind} payload ({_fields(error)})"
    return None
