"""The agent: a bounded loop of model calls, guarded tools and evaluators.

The Slack app builds one :class:`Agent` and calls :meth:`Agent.run` for each question.
"""

from bot.agent.callbacks import Callback, CallbackChain, CountToolErrors
from bot.agent.context import SlackDirectory, TurnContext
from bot.agent.decode import DecodeResult, decode_arguments
from bot.agent.evaluation import (
    EvaluationDetails,
    EvaluationResult,
    Evaluator,
    EvaluatorError,
    SelectiveEvaluator,
)
from bot.agent.lesson_evaluator import LessonEvaluator
from bot.agent.loop import EMPTY_REPLY_TEXT, NARROW_DOWN_TEXT, Agent
from bot.agent.messages import (
    Completion,
    CompletionRequest,
    Conversation,
    Delta,
    Message,
    Role,
    ToolCall,
    ToolDefinition,
    ToolResult,
)
from bot.agent.prompt import EXPERIENCE_HEADING, SYSTEM_PROMPT, render_experience
from bot.agent.provider import ModelUnavailable, Provider
from bot.agent.result import AgentResult, StopReason
from bot.agent.streaming import OnText
from bot.agent.tools import (
    GuardPolicy,
    LoopMemory,
    Tool,
    ToolError,
    ToolErrorClass,
    ToolRegistry,
    default_tools,
    tool,
)

__all__ = [
    "EMPTY_REPLY_TEXT",
    "EXPERIENCE_HEADING",
    "NARROW_DOWN_TEXT",
    "SYSTEM_PROMPT",
    "Agent",
    "AgentResult",
    "Callback",
    "CallbackChain",
    "Completion",
    "CompletionRequest",
    "Conversation",
    "CountToolErrors",
    "DecodeResult",
    "Delta",
    "EvaluationDetails",
    "EvaluationResult",
    "Evaluator",
    "EvaluatorError",
    "GuardPolicy",
    "LessonEvaluator",
    "LoopMemory",
    "Message",
    "ModelUnavailable",
    "OnText",
    "Provider",
    "Role",
    "SelectiveEvaluator",
    "SlackDirectory",
    "StopReason",
    "Tool",
    "ToolCall",
    "ToolDefinition",
    "ToolError",
    "ToolErrorClass",
    "ToolRegistry",
    "ToolResult",
    "TurnContext",
    "decode_arguments",
    "default_tools",
    "render_experience",
    "tool",
]
