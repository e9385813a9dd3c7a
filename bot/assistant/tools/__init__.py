"""The assistant's tools, one ``@tool`` function per module; every turn gets them all."""

from bot.agent.tools.registry import Tool
from bot.assistant.tools.current_datetime import current_datetime
from bot.assistant.tools.lookup_user import lookup_user
from bot.assistant.tools.read_thread import read_thread
from bot.assistant.tools.recall_my_memories import recall_my_memories

__all__ = [
    "current_datetime",
    "default_tools",
    "lookup_user",
    "read_thread",
    "recall_my_memories",
]


def default_tools() -> list[Tool]:
    return [recall_my_memories, read_thread, lookup_user, current_datetime]
