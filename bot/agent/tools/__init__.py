"""Tools: declared with ``@tool``, guarded, budgeted and loop-checked."""

from bot.agent.tools.budget import RetryBudget, call_signature
from bot.agent.tools.errors import ToolError, ToolErrorClass
from bot.agent.tools.guard import GuardedOutput, GuardPolicy, check_output, run_tool
from bot.agent.tools.loop_detector import LoopMemory
from bot.agent.tools.registry import SemanticCheck, Tool, ToolRegistry, tool

__all__ = [
    "GuardPolicy",
    "GuardedOutput",
    "LoopMemory",
    "RetryBudget",
    "SemanticCheck",
    "Tool",
    "ToolError",
    "ToolErrorClass",
    "ToolRegistry",
    "call_signature",
    "check_output",
    "run_tool",
    "tool",
]
