"""The generic agent core: a bounded loop of model calls, guarded tools and
evaluators, with callbacks around each step.

It imports nothing of the application: an application subclasses :class:`TurnContext`, and
plugs its tools, evaluators and callbacks in (the Slack assistant's are in ``bot.assistant``).
It builds one :class:`Agent` and calls :meth:`Agent.run` for each question.
"""

from bot.agent.callbacks import Callback, CallbackChain
from bot.agent.context import TurnContext
from bot.agent.decode import DecodeResult, decode_arguments
from bot.agent.evaluation import (
    EvaluationDetails,
    EvaluationResult,
    Evaluator,
    EvaluatorError,
    SelectiveEvaluator,
)
from bot.agent.loop import EMPTY_REPLY_TEXT, NARROW_DOWN_TEXT, Agent
from bot.agent.messages import (
    Completion,
    CompletionRequest,
    Conversation,
    Delta,
    Message,
    MessageImage,
    Role,
    ToolCall,
    ToolDefinition,
)
from bot.agent.provider import ModelUnavailable, Provider
from bot.agent.result import AgentResult, StopReason
from bot.agent.streaming import OnText
from bot.agent.tool_progress import OnTool, ToolStage
from bot.agent.tools import (
    GuardPolicy,
    LoopMemory,
    Tool,
    ToolError,
    ToolErrorClass,
    ToolRegistry,
    tool,
)
from bot.agent.tools.result import ToolResult

__all__ = [
    "EMPTY_REPLY_TEXT",
    "NARROW_DOWN_TEXT",
    "Agent",
    "AgentResult",
    "Callback",
    "CallbackChain",
    "Completion",
    "CompletionRequest",
    "Conversation",
    "DecodeResult",
    "Delta",
    "EvaluationDetails",
    "EvaluationResult",
    "Evaluator",
    "EvaluatorError",
    "GuardPolicy",
    "LoopMemory",
    "Message",
    "MessageImage",
    "ModelUnavailable",
    "OnText",
    "OnTool",
    "Provider",
    "Role",
    "SelectiveEvaluator",
    "StopReason",
    "Tool",
    "ToolCall",
    "ToolDefinition",
    "ToolError",
    "ToolErrorClass",
    "ToolRegistry",
    "ToolResult",
    "ToolStage",
    "TurnContext",
    "decode_arguments",
    "tool",
]
