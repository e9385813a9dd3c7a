"""A person's working notes in a thread: what the answering service notes during their
turn, and how the model is shown it on their next turn in the same thread.

Notes are the person's own messages and the results of the tools the agent called for them
(failed calls are left out). They belong to that person in that thread (another person's
turn in the same thread never sees them: a tool such as ``recall_my_memories`` returns
private memories). They live only in the process (:class:`memory.WorkingMemory`), expire
with inactivity, are dropped and fenced off by ``/forget``, and never become episodic
memory: only an exchange the person rated does.
"""

from __future__ import annotations

from datetime import datetime

from bot.agent.messages import Message, Role
from bot.agent.result import AgentResult
from bot.answering.incoming import IncomingMessage
from memory import WorkingMemory
from memory.text import shorten

__all__ = ["WORKING_NOTES_HEADING", "has_notes", "note_turn", "thread_key", "working_notes"]

WORKING_NOTES_HEADING = "Working notes from earlier in this conversation"
SHOWN_VALUE_CHARS = 400
STATEMENT_CHARS = 300


def thread_key(message: IncomingMessage) -> str:
    """The conversation a message continues: its thread, or a DM's top level, in its
    workspace (an org-wide app meets one channel id in several of them)."""
    thread = f"{message.channel_id}:{message.reply_thread_ts or 'top'}"
    return f"{workspace_threads(message.team_id)}{thread}"


def workspace_threads(team_id: str) -> str:
    """What the keys of a workspace's threads start with."""
    return f"{team_id}/"


def note_turn(
    memory: WorkingMemory,
    message: IncomingMessage,
    question: str,
    result: AgentResult,
    *,
    started_at: datetime,
) -> None:
    """Remember, for the asker only, what they said and what the agent's tools found in
    this turn (nothing, when they were forgotten since ``started_at``)."""
    thread = thread_key(message)
    if not memory.put(
        thread,
        f"<@{message.user_id}> said (ts {message.ts})",
        shorten(question, STATEMENT_CHARS),
        user_id=message.user_id,
        started_at=started_at,
    ):
        return
    failed = {error.model_dump_json(exclude_none=True) for error in result.tool_errors}
    calls = {call.id: call for turn in result.conversation.messages for call in turn.tool_calls}
    for turn in result.conversation.messages:
        call = calls.get(turn.tool_call_id or "")
        if turn.role is Role.TOOL and call is not None and turn.content not in failed:
            memory.put(
                thread,
                f"{call.name}({call.arguments})",
                turn.content,
                user_id=message.user_id,
                started_at=started_at,
            )


def has_notes(memory: WorkingMemory, message: IncomingMessage) -> bool:
    """Whether the asker has notes in this thread (most turns have none)."""
    return bool(memory.facts(thread_key(message), user_id=message.user_id))


def working_notes(
    memory: WorkingMemory, message: IncomingMessage, *, forgotten_at: datetime | None
) -> list[Message]:
    """The asker's notes of this thread as one system message, or none when there are none;
    without what turns before their last ``/forget`` (``forgotten_at``) noted."""
    facts = memory.facts(thread_key(message), user_id=message.user_id, forgotten_at=forgotten_at)
    if not facts:
        return []
    lines = [
        f"{WORKING_NOTES_HEADING} (not validated by anyone; the person's latest word wins):",
        *(f"- {key}: {shorten(value, SHOWN_VALUE_CHARS)}" for key, value in facts.items()),
    ]
    return [Message.system("\n".join(lines))]
