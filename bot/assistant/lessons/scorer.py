"""An :class:`memory.learning.ImportanceScorer` that asks the model."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from bot.agent.provider import Provider
from bot.assistant.lessons.asking import ask
from bot.assistant.lessons.parsing import parse_importance
from memory.models import EpisodeStatus
from memory.text import shorten

__all__ = ["LLMImportanceScorer"]

SCORING_PROMPT = """\
Rate how useful it is for a Slack assistant to remember the exchange below when answering \
the same person's future questions, on a scale from 1 to 10: 1 is routine small talk or a \
one-off fact, 10 is a critical, reusable preference, correction or procedure. \
Reply with the number only.\
"""

_VERDICTS = {
    EpisodeStatus.SUCCESS: "The person approved this answer with a 👍 reaction.",
    EpisodeStatus.FAILURE: "The person rejected this answer with a 👎 reaction.",
    EpisodeStatus.PENDING: "The person has not rated this answer.",
}


@dataclass(frozen=True)
class LLMImportanceScorer:
    """Scores an exchange 1..10; raises when the model fails or replies with no valid score.

    An out-of-range or missing number is rejected, not clamped: see
    :func:`bot.assistant.lessons.parsing.parse_importance`.
    """

    provider: Provider
    _: KW_ONLY
    max_input_chars: int = 1000

    async def score(self, question: str, answer: str, status: EpisodeStatus) -> int:
        reply = await ask(
            self.provider,
            instructions=SCORING_PROMPT,
            prompt=(
                f"Question:\n{shorten(question, self.max_input_chars)}\n\n"
                f"Answer:\n{shorten(answer, self.max_input_chars)}\n\n"
                f"{_VERDICTS[status]}"
            ),
            max_tokens=50,
            temperature=0.0,
        )
        return parse_importance(reply)
