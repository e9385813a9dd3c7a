"""Errors the LLM provider raises beyond the agent's :class:`ModelUnavailable`."""

from __future__ import annotations

from bot.agent.provider import ModelUnavailable

__all__ = ["PERMANENT_STATUSES", "ModelRequestRejected"]

PERMANENT_STATUSES = frozenset({401, 403, 404})
"""Refusals only an operator can fix: credentials (401, 403), the model's name or URL (404)."""


class ModelRequestRejected(ModelUnavailable):
    """The model server refused the request itself (a 4xx other than 429); retrying won't help.

    A subclass of :class:`ModelUnavailable`, so callers that only care whether the model
    answered need not distinguish it; ``status`` says why for those that do."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.permanent = status in PERMANENT_STATUSES
