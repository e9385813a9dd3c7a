"""The structured error a guarded tool returns to the model instead of raising."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

__all__ = ["NON_RETRYABLE", "ToolError", "ToolErrorClass"]

ToolErrorClass = Literal["schema_mismatch", "partial_data", "semantic_garbage"]

NON_RETRYABLE: frozenset[str] = frozenset({"schema_mismatch", "semantic_garbage"})
"""Classes for which repeating the same call cannot help."""


class ToolError(BaseModel):
    """What went wrong with a tool call, shaped so the model can act on it.

    * ``schema_mismatch``: the tool answered outside its contract; don't retry the same call.
    * ``partial_data``: valid but incomplete (or nothing in time); retry differently.
    * ``semantic_garbage``: well-formed but meaningless; rethink the call.
    """

    error_class: ToolErrorClass
    code: str
    detail: str
    hint: str | None = None
    tool: str = ""
    """Set by the guard; used for the ``tool_error:<class>:<tool>`` counter."""

    @property
    def retryable(self) -> bool:
        return self.error_class not in NON_RETRYABLE

    @property
    def counter(self) -> str:
        """The operational counter name this error increments."""
        return f"tool_error:{self.error_class}:{self.tool}"
