"""The Slack assistant's domain, plugged into the generic agent core (``bot.agent``).

Its context (the asker, scope, store, Slack lookups), tools, the evaluators that send back a
draft repeating a 👎 answer or copying a lesson, the system prompt with past experience, and
the callback that counts tool failures. :func:`build_agent` assembles them into the agent
every turn runs.
"""

from bot.agent import Agent, GuardPolicy, LoopMemory, Provider
from bot.assistant.context import AssistantContext, SlackDirectory
from bot.assistant.lesson_evaluator import LessonEvaluator
from bot.assistant.notes_evaluator import NotesEvaluator
from bot.assistant.prompt import EXPERIENCE_HEADING, SYSTEM_PROMPT, render_experience
from bot.assistant.tool_errors import CountToolErrors
from bot.assistant.tools import default_tools
from memory import MemoryStore

__all__ = [
    "EXPERIENCE_HEADING",
    "SYSTEM_PROMPT",
    "AssistantContext",
    "CountToolErrors",
    "LessonEvaluator",
    "NotesEvaluator",
    "SlackDirectory",
    "build_agent",
    "default_tools",
    "render_experience",
]


def build_agent(
    provider: Provider,
    memory: MemoryStore,
    *,
    guard: GuardPolicy,
    loop_memory: LoopMemory,
    max_tokens: int | None = None,
) -> Agent:
    """The agent every turn runs: instructions, the assistant's tools, the checks against 👎
    answers and lessons, and tool failures counted in ``memory``; each reply at most
    ``max_tokens`` long."""
    return Agent(
        provider,
        tools=default_tools(),
        instructions=SYSTEM_PROMPT,
        evaluators=[LessonEvaluator(), NotesEvaluator()],
        callbacks=[CountToolErrors(memory)],
        guard=guard,
        loop_memory=loop_memory,
        max_tokens=max_tokens,
    )
