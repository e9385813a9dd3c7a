"""A person's message the bot has decided to answer, as the answering service sees it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from bot.slack.files import SlackFile
from memory import ConversationKind, Scope

__all__ = ["IncomingMessage"]


class IncomingMessage(BaseModel):
    """Built by the listeners from a ``message`` or ``app_mention`` event."""

    event_id: str
    team_id: str
    enterprise_id: str = ""
    """The Enterprise Grid org of the workspace; empty outside one."""
    channel_id: str
    user_id: str
    text: str
    ts: str
    thread_ts: str | None = None
    """The thread the message was written in, if any."""
    is_dm: bool
    reply_in_thread: bool
    """Answer under the message (streamed in its thread) rather than beside it."""
    starts_conversation: bool = False
    """The first message the bot answers in a DM thread (a new conversation of the agent
    experience, or a new assistant thread): the thread gets a title from it."""
    files: list[SlackFile] = Field(default_factory=list)
    """The files attached to the message (``files`` of a ``file_share`` message or of a
    mention): their names, types and private URLs, never their content."""

    @property
    def reply_thread_ts(self) -> str | None:
        """The thread the answer goes to: the message's thread, or a new one under it."""
        if self.thread_ts is not None:
            return self.thread_ts
        return self.ts if self.reply_in_thread else None

    @property
    def scope(self) -> Scope:
        kind = ConversationKind.DM if self.is_dm else ConversationKind.CHANNEL
        return Scope(
            team_id=self.team_id,
            channel_id=self.channel_id,
            kind=kind,
            enterprise_id=self.enterprise_id,
        )

    @property
    def dedupe_keys(self) -> tuple[str, str]:
        """Retries share the event id; ``message`` and ``app_mention`` share channel and ts."""
        return (self.event_id, f"{self.channel_id}:{self.ts}")
