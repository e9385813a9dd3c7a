"""The agent loop: model call, tool calls, evaluation, until an answer.

Bounded everywhere: iterations, empty-reply nudges, argument corrections, retries of the
same tool call, evaluation rounds. The only exception that leaves :meth:`Agent.run` on
purpose is :class:`~bot.agent.provider.ModelUnavailable` (and whatever a callback raises).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.agent.callbacks import Callback, CallbackChain
from bot.agent.context import TurnContext
from bot.agent.decode import text_tool_call
from bot.agent.dispatch import ToolDispatcher
from bot.agent.evaluation import (
    Evaluator,
    EvaluatorError,
    evaluate_draft,
    evaluation_feedback,
    is_active,
)
from bot.agent.messages import (
    Completion,
    CompletionRequest,
    Conversation,
    Message,
    Role,
    ToolCall,
    ToolDefinition,
)
from bot.agent.provider import Provider
from bot.agent.result import AgentResult, StopReason
from bot.agent.streaming import DEFAULT_HOLD_BACK, OnText, TextSink
from bot.agent.tool_progress import OnTool, ReportToolCalls
from bot.agent.tools.errors import ToolError
from bot.agent.tools.guard import GuardPolicy, ToolGuard
from bot.agent.tools.loop_detector import LoopMemory
from bot.agent.tools.registry import Tool, ToolRegistry

__all__ = [
    "EMPTY_REPLY_NUDGE",
    "EMPTY_REPLY_TEXT",
    "NARROW_DOWN_TEXT",
    "REDRAFT_TEMPERATURE",
    "Agent",
]

EMPTY_REPLY_NUDGE = (
    "Your last reply was empty. Answer the question above, or call a tool if you need one."
)
EMPTY_REPLY_TEXT = "I couldn't produce an answer; please rephrase and ask again."
REDRAFT_TEMPERATURE = 0.7
"""The sampling temperature of a draft asked for again after evaluators rejected one: at a
temperature of 0, a model told to change its draft wrote the same one again."""
NARROW_DOWN_TEXT = (
    "I ran out of steps before finishing; please narrow the question down and ask again."
)


@dataclass(frozen=True)
class _Review:
    draft: str
    problems: int
    """How many problems evaluators found: each rejection counts its violations (one at
    least)."""
    fallback: str | None
    """The first rejecting evaluator's text to send instead, if it offered one."""


@dataclass
class _Turn:
    """The mutable bookkeeping of one run."""

    conversation: Conversation
    context: TurnContext
    sink: TextSink
    stream: bool
    evaluators: list[Evaluator[Any]]
    llm_calls: int = 0
    iterations: int = 0
    evaluation_rounds: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    best_text: str = ""
    tool_errors: list[ToolError] = field(default_factory=list)
    reviewed: list[_Review] = field(default_factory=list)
    """Each draft the evaluators saw, with what they found."""


class Agent:
    """Answers one conversation turn with a model, tools and evaluators.

    One Agent serves every turn (concurrently too); it keeps a small per-thread memory of
    failed tool calls (``loop_memory``) so a follow-up in a thread doesn't repeat them.
    """

    def __init__(
        self,
        provider: Provider,
        *,
        tools: Sequence[Tool] = (),
        instructions: str | None = None,
        max_iterations: int = 6,
        max_empty_retries: int = 2,
        max_decode_feedback: int = 2,
        evaluators: Sequence[Evaluator[Any]] = (),
        max_evaluation_rounds: int = 2,
        callbacks: Sequence[Callback] = (),
        guard: GuardPolicy,
        loop_memory: LoopMemory,
        max_tokens: int | None = None,
        temperature: float | None = None,
        redraft_temperature: float | None = REDRAFT_TEMPERATURE,
        hold_back: int = DEFAULT_HOLD_BACK,
    ) -> None:
        self.provider = provider
        self.instructions = instructions
        self.tools = ToolRegistry(tools)
        self.guard = guard
        self.loop_memory = loop_memory
        self.evaluators = list(evaluators)
        self.callbacks = CallbackChain(callbacks)
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.redraft_temperature = redraft_temperature
        self.hold_back = hold_back
        if max_iterations < 1:
            raise ValueError("max_iterations must be at least 1")
        if min(max_empty_retries, max_decode_feedback, max_evaluation_rounds) < 0:
            raise ValueError("retry limits can't be negative")
        self.max_iterations = max_iterations
        self.max_empty_retries = max_empty_retries
        self.max_decode_feedback = max_decode_feedback
        self.max_evaluation_rounds = max_evaluation_rounds

    async def run(
        self,
        conversation: Conversation,
        *,
        context: TurnContext,
        on_text: OnText | None = None,
        on_tool: OnTool | None = None,
    ) -> AgentResult:
        """Answer the last message of ``conversation`` (which is not modified).

        With ``on_text``, the answer is streamed through it, unless an evaluator has
        something to check this turn: then the accepted answer is sent through it once.
        Either way ``result.text`` is then exactly what went through ``on_text`` (see
        :mod:`bot.agent.streaming` for why it can include a long preamble to tool calls).
        With ``on_tool``, each tool call is reported as it starts and ends
        (:mod:`bot.agent.tool_progress`).
        """
        turn = await self._start(conversation, context, on_text)
        await self.callbacks.before_loop(turn.conversation, context)
        tool_hooks: Callback = self.callbacks
        if on_tool is not None:
            tool_hooks = CallbackChain([self.callbacks, ReportToolCalls(on_tool)])
        dispatcher = ToolDispatcher(
            self.tools,
            ToolGuard(self.guard, self.loop_memory, context),
            tool_hooks,
            context,
            max_decode_feedback=self.max_decode_feedback,
        )
        definitions = self.tools.definitions()
        while turn.iterations < self.max_iterations:
            turn.iterations += 1
            completion = await self._reply(turn, definitions)
            if completion is None:
                return await self._finish(turn, EMPTY_REPLY_TEXT, "empty_reply")
            completion = self._calls_written_as_text(completion, turn.iterations)
            turn.conversation.append(Message.assistant(completion.content, completion.tool_calls))
            if completion.content.strip():
                turn.best_text = completion.content
            if not completion.tool_calls:
                if await self._send_back(turn, completion.content):
                    continue
                chosen = _least_faulty(turn.reviewed, completion.content)
                return await self._finish(
                    turn, chosen, "answer", appended=chosen == completion.content
                )
            turn.sink.end_reply()
            stop_text = await self._run_tools(turn, dispatcher, completion.tool_calls)
            if stop_text is not None:
                return await self._finish(turn, stop_text, "loop_detected")
        text = f"{turn.best_text}\n\n{NARROW_DOWN_TEXT}" if turn.best_text else NARROW_DOWN_TEXT
        return await self._finish(turn, text, "max_iterations")

    def _calls_written_as_text(self, completion: Completion, iteration: int) -> Completion:
        """The reply with a tool call it wrote as its text made the call it names: the
        person never reads it (:func:`~bot.agent.decode.text_tool_call`)."""
        if completion.tool_calls:
            return completion
        call = text_tool_call(
            completion.content, self.tools.names, call_id=f"text_call_{iteration}"
        )
        if call is None:
            return completion
        return completion.model_copy(update={"content": "", "tool_calls": [call]})

    @staticmethod
    async def _run_tools(
        turn: _Turn, dispatcher: ToolDispatcher, calls: list[ToolCall]
    ) -> str | None:
        """Run the calls and append their results; the text to stop with, if one stops."""
        outcomes = await dispatcher.dispatch(calls)
        for outcome in outcomes:
            turn.conversation.append(
                Message(
                    role=Role.TOOL,
                    content=outcome.content,
                    tool_call_id=outcome.call.id,
                    name=outcome.call.name,
                )
            )
            if outcome.error is not None:
                turn.tool_errors.append(outcome.error)
        return next((o.stop_text for o in outcomes if o.stop_text), None)

    async def _start(
        self, conversation: Conversation, context: TurnContext, on_text: OnText | None
    ) -> _Turn:
        working = conversation.clone()
        instructed = bool(working.messages) and working.messages[0] == Message.system(
            self.instructions or ""
        )
        if self.instructions and not instructed:
            # Other system messages (recalled experience) follow the instructions.
            working.messages.insert(0, Message.system(self.instructions))

        async def report(error: EvaluatorError) -> None:
            await self.callbacks.on_evaluator_error(error, context)

        active = [e for e in self.evaluators if await is_active(e, context, report)]
        return _Turn(
            conversation=working,
            context=context,
            sink=TextSink(on_text, hold_back=self.hold_back),
            stream=on_text is not None and not active,
            evaluators=active,
        )

    async def _reply(self, turn: _Turn, tools: list[ToolDefinition]) -> Completion | None:
        """One model reply with text or tool calls, nudging empty ones; None if all were."""
        for attempt in range(self.max_empty_retries + 1):
            if attempt:
                turn.conversation.append(Message.user(EMPTY_REPLY_NUDGE))
            request = CompletionRequest(
                messages=list(turn.conversation.messages),
                tools=tools,
                max_tokens=self.max_tokens,
                temperature=self.redraft_temperature
                if turn.evaluation_rounds
                else self.temperature,
            )
            await self.callbacks.before_llm_call(request, turn.context)
            turn.llm_calls += 1
            if turn.stream:
                streamed: list[str] = []
                final: Completion | None = None
                async for delta in self.provider.stream(request):
                    if delta.content:
                        streamed.append(delta.content)
                        await turn.sink.delta(delta.content)
                    if delta.final is not None:
                        final = delta.final
                completion = final or Completion(content="".join(streamed))
            else:
                completion = await self.provider.complete(request)
            turn.input_tokens += completion.input_tokens
            turn.output_tokens += completion.output_tokens
            await self.callbacks.after_llm_call(completion, turn.context)
            if completion.content.strip() or completion.tool_calls:
                return completion
            turn.sink.end_reply()
        return None

    async def _send_back(self, turn: _Turn, draft: str) -> bool:
        """Whether evaluators rejected the draft and it goes back to the model with their
        feedback. Every draft is evaluated, the last one too: with no round (or iteration)
        left to improve it, the least faulty draft is sent (:func:`_least_faulty`)."""
        if not turn.evaluators:
            return False

        async def report(error: EvaluatorError) -> None:
            await self.callbacks.on_evaluator_error(error, turn.context)

        rejections = await evaluate_draft(turn.evaluators, draft, turn.context, report)
        turn.reviewed.append(
            _Review(
                draft=draft,
                problems=sum(max(1, len(r.details.violations)) for r in rejections),
                fallback=next((r.fallback for r in rejections if r.fallback), None),
            )
        )
        if (
            not rejections
            or turn.evaluation_rounds >= self.max_evaluation_rounds
            or turn.iterations >= self.max_iterations
        ):
            return False
        turn.evaluation_rounds += 1
        turn.conversation.append(Message.user(evaluation_feedback(rejections)))
        return True

    async def _finish(
        self, turn: _Turn, text: str, reason: StopReason, *, appended: bool = False
    ) -> AgentResult:
        if not appended:
            turn.conversation.append(Message.assistant(text))
        result = AgentResult(
            text=await turn.sink.finish(text),
            conversation=turn.conversation,
            llm_calls=turn.llm_calls,
            tool_errors=turn.tool_errors,
            stop_reason=reason,
            iterations=turn.iterations,
            evaluation_rounds=turn.evaluation_rounds,
            input_tokens=turn.input_tokens,
            output_tokens=turn.output_tokens,
        )
        await self.callbacks.after_loop(result, turn.context)
        return result


def _least_faulty(reviewed: Sequence[_Review], last: str) -> str:
    """The text to send: the draft with the fewest problems, the latest of those tied, or,
    when even that one was rejected, the fallback its evaluators offered; the last draft
    when none was reviewed."""
    if not reviewed:
        return last
    fewest = min(review.problems for review in reviewed)
    best = next(review for review in reversed(reviewed) if review.problems == fewest)
    return best.fallback if best.problems and best.fallback else best.draft
