"""Reading a request's payload through the pydantic model of what a listener uses of it: a
payload that does not fit is logged as an ignored event (outcome ``malformed``), never
raised, since Slack would only send it again."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from bot.observability import Observer

__all__ = ["read_payload"]

M = TypeVar("M", bound=BaseModel)


def read_payload(model: type[M], body: dict[str, Any], observer: Observer, kind: str) -> M | None:
    """``body`` read as ``model``; None, logged as an ignored ``kind`` event, when it is
    malformed."""
    try:
        return model.model_validate(body)
    except ValidationError:
        observer.ignored(kind, "malformed")
        return None
