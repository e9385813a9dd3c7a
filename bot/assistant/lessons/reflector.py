"""A :class:`memory.learning.FailureReflector` that asks the model.

A lesson is what the assistant reads the next time, in place of the answer that failed (see
:mod:`bot.assistant.prompt`), so it says what to do, never what was done: a lesson naming the
rejected answer's command primed small models to give that command again. A model is a weak
judge of its own text, so each draft is measured against the rejected answer
(:func:`~bot.assistant.similarity.shared_commands`, a long common passage) and, when it
repeats it, drafted again with that said. A last draft that still repeats it is not kept:
the lesson is then written without the model, from what the person said was wrong when
they said it (a small model, asked for a lesson, often copied the rejected answer whole).
"""

from __future__ import annotations

import re
from dataclasses import KW_ONLY, dataclass

from bot.agent.loop import REDRAFT_TEMPERATURE
from bot.agent.messages import CompletionRequest, Message
from bot.agent.provider import Provider
from bot.assistant.lessons.parsing import MAX_LESSON_CHARS, parse_lesson
from bot.assistant.similarity import commands, common_run, shared_commands
from memory.text import shorten

__all__ = ["DIFFERENT_ANSWER", "FROM_REASON", "REFLECTION_PROMPT", "LLMFailureReflector"]

REFLECTION_PROMPT = """\
You help a Slack assistant do better. A person asked it the question below and marked its \
answer 👎: it did not help them. Name a different way to answer the question, in one or two \
sentences that start with "Suggest". Never suggest what the rejected answer suggested. When \
the person said what was wrong, follow what they said. Reply with the sentences only.\
"""

REDRAFT = (
    "That lesson repeats the rejected answer{detail}. Write it again: say only what to "
    "do instead, without the rejected answer's commands or words."
)
DIFFERENT_ANSWER = "Give a different answer from last time: another approach, another command."
FROM_REASON = "They said what was wrong: “{reason}”. Answer with that in mind, differently."
_MAX_COMMON_WORDS = 6
_MAX_DIGEST_COMMANDS = 5
_MAX_DIGEST_CHARS = 200
_FIRST_SENTENCE = re.compile(r".+?[.!?:](?=\s|$)")
LESSON_TEMPERATURE = 0.2


def _apart(lesson: str, answer: str) -> bool:
    """Whether the lesson names none of the rejected answer's commands and shares no passage
    of more than ``_MAX_COMMON_WORDS`` words with it."""
    return not shared_commands(lesson, answer) and common_run(lesson, answer) <= _MAX_COMMON_WORDS


@dataclass(frozen=True)
class LLMFailureReflector:
    """Drafts the lesson of a 👎 exchange; raises when the model fails or replies with nothing.

    A draft that names the rejected answer's commands, or shares a passage of more than
    ``_MAX_COMMON_WORDS`` words with it, is sent back up to ``max_redrafts`` times; then the
    lesson is written without the model."""

    provider: Provider
    _: KW_ONLY
    max_input_chars: int = 1500
    max_redrafts: int = 2

    async def reflect(self, question: str, answer: str, *, reason: str | None = None) -> str:
        prompt = f"Question:\n{shorten(question, self.max_input_chars)}\n\n{_digest(answer)}"
        if reason:
            prompt += (
                f"\n\nWhat the person said went wrong:\n{shorten(reason, self.max_input_chars)}"
            )
        messages = [Message.system(REFLECTION_PROMPT), Message.user(prompt)]
        lesson = await self._draft(messages, temperature=LESSON_TEMPERATURE)
        for _ in range(self.max_redrafts):
            if _apart(lesson, answer):
                return lesson
            commands = shared_commands(lesson, answer)
            detail = f" (it names {', '.join(sorted(commands))})" if commands else ""
            messages += [Message.assistant(lesson), Message.user(REDRAFT.format(detail=detail))]
            lesson = await self._draft(messages, temperature=REDRAFT_TEMPERATURE)
        return lesson if _apart(lesson, answer) else _without_the_model(reason)

    async def _draft(self, messages: list[Message], *, temperature: float) -> str:
        completion = await self.provider.complete(
            CompletionRequest(messages=messages, max_tokens=200, temperature=temperature)
        )
        return parse_lesson(completion.content)


def _digest(answer: str) -> str:
    """What the rejected answer suggested, short: its commands, else its first sentence (a
    small model shown the whole answer copied it into the lesson)."""
    if found := commands(answer):
        listed = "; ".join(f"`{command}`" for command in sorted(found)[:_MAX_DIGEST_COMMANDS])
        return f"The rejected answer told them to run: {listed}"
    first = _FIRST_SENTENCE.match(" ".join(answer.split()))
    opening = first.group(0) if first else answer
    return f"The rejected answer began: “{shorten(opening, _MAX_DIGEST_CHARS)}”"


def _without_the_model(reason: str | None) -> str:
    if reason:
        return FROM_REASON.format(reason=shorten(" ".join(reason.split()), MAX_LESSON_CHARS - 80))
    return DIFFERENT_ANSWER
