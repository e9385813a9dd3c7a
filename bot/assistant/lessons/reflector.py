"""A :class:`memory.protocols.FailureReflector` that asks the model."""

from __future__ import annotations

from bot.agent.provider import Provider
from bot.assistant.lessons.asking import ask
from bot.assistant.lessons.parsing import parse_lesson
from memory.text import shorten

__all__ = ["LLMFailureReflector"]

REFLECTION_PROMPT = """\
You review an answer that a Slack assistant gave and that the person who asked marked as \
unhelpful with a 👎 reaction. In 2 or 3 sentences, say what most likely went wrong and what \
the assistant should do instead the next time it gets a similar question. Be specific to \
this question. Do not apologise and do not address the person. Reply with the sentences only.\
"""


class LLMFailureReflector:
    """Drafts the lesson of a 👎 exchange; raises when the model fails or replies with nothing."""

    def __init__(self, provider: Provider, *, max_input_chars: int = 1500) -> None:
        self._provider = provider
        self._max_input_chars = max_input_chars

    async def reflect(self, question: str, answer: str, *, reason: str | None = None) -> str:
        prompt = (
            f"Question:\n{shorten(question, self._max_input_chars)}\n\n"
            f"Rejected answer:\n{shorten(answer, self._max_input_chars)}"
        )
        if reason:
            prompt += (
                f"\n\nWhat the person said went wrong:\n{shorten(reason, self._max_input_chars)}"
            )
        reply = await ask(
            self._provider,
            instructions=REFLECTION_PROMPT,
            prompt=prompt,
            max_tokens=300,
            temperature=0.2,
        )
        return parse_lesson(reply)
