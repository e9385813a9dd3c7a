"""The tools every turn gets. Adding one: a module with one ``@tool`` function."""

from bot.agent.tools.builtin.current_datetime import current_datetime
from bot.agent.tools.builtin.lookup_user import lookup_user
from bot.agent.tools.builtin.read_thread import read_thread
from bot.agent.tools.builtin.recall_my_memories import recall_my_memories
from bot.agent.tools.registry import Tool

__all__ = [
    "current_datetime",
    "default_tools",
    "lookup_user",
    "read_thread",
    "recall_my_memories",
]


def default_tools() -> list[Tool]:
    return [recall_my_memories, read_thread, lookup_user, current_datetime]
