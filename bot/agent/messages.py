"""Typed messages exchanged between the agent loop, its tools and the model."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Completion",
    "CompletionRequest",
    "Conversation",
    "Delta",
    "Message",
    "MessageImage",
    "Role",
    "ToolCall",
    "ToolDefinition",
]


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str = Field(default="{}", description="raw JSON object, as the model wrote it")


class MessageImage(BaseModel):
    """An image a person attached to their message: its bytes and
    their MIME type (``image/png``...). Held in memory for one turn only."""

    model_config = ConfigDict(frozen=True)

    mime: str
    data: bytes = Field(repr=False)


class Message(BaseModel):
    role: Role
    content: str = ""
    images: list[MessageImage] = Field(default_factory=list, exclude=True, repr=False)
    """Optional vision input on a user message, for the turn in memory only: left out of
    every dump and repr, so nothing that serialises a message can write the bytes out."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    @classmethod
    def system(cls, content: str) -> Message:
        return cls(role=Role.SYSTEM, content=content)

    @classmethod
    def user(cls, content: str, images: list[MessageImage] | None = None) -> Message:
        return cls(role=Role.USER, content=content, images=images or [])

    @classmethod
    def assistant(cls, content: str, tool_calls: list[ToolCall] | None = None) -> Message:
        return cls(role=Role.ASSISTANT, content=content, tool_calls=tool_calls or [])


class Conversation(BaseModel):
    messages: list[Message] = Field(default_factory=list)

    def append(self, message: Message) -> None:
        self.messages.append(message)

    def clone(self) -> Conversation:
        return Conversation(messages=list(self.messages))


class ToolDefinition(BaseModel):
    """What the model is told about a tool: its name, purpose and JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


class CompletionRequest(BaseModel):
    messages: list[Message]
    tools: list[ToolDefinition] = Field(default_factory=list)
    max_tokens: int | None = None
    temperature: float | None = None


class Completion(BaseModel):
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0


class Delta(BaseModel):
    """A piece of a streamed completion; the last one has ``final`` set."""

    content: str = ""
    final: Completion | None = None
