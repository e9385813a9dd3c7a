"""Send a draft back when it copies a lesson, the bot's own note, into the answer."""

from __future__ import annotations

from bot.agent.evaluation import EvaluationDetails, EvaluationResult
from bot.assistant.context import AssistantContext
from bot.assistant.lesson_evaluator import ask_instead
from bot.assistant.similarity import words
from memory import Episode

__all__ = ["COPIES_NOTE", "NotesEvaluator"]

COPIES_NOTE = (
    "This answer copies your notes on this person word for word. Write the answer in your "
    "own words, to the person, without mentioning the notes."
)


class NotesEvaluator:
    """Rejects a draft that shares a passage of ``min_words`` words or more (stopwords not
    counted) with a lesson recalled for this person, unless the lesson's question has that
    passage too (a question's own words may come back in any answer). A small model told
    what to do this time wrote its lesson into the answer as it was, even when sent back
    twice (see ``benchmarks/README.md``); the person should read an answer, not the bot's
    notes. So when every draft copies a lesson, the person is asked what went wrong
    instead, as when every draft repeats the 👎 answer (:func:`ask_instead`)."""

    def __init__(self, *, min_words: int = 5) -> None:
        self.min_words = min_words

    def applies(self, context: AssistantContext) -> bool:
        return any(_noted(context))

    async def evaluate(self, draft: str, context: AssistantContext) -> EvaluationResult:
        drafted = self._runs(draft)
        copied = [
            episode
            for episode in _noted(context)
            if (self._runs(episode.lesson or "") & drafted) - self._runs(episode.question)
        ]
        if not copied:
            return EvaluationResult.passed()
        return EvaluationResult(
            success=False,
            feedback=COPIES_NOTE,
            fallback=ask_instead(copied),
            details=EvaluationDetails(
                violations=[f"Copies {len(copied)} lesson(s) into the answer."]
            ),
        )

    def _runs(self, text: str) -> set[tuple[str, ...]]:
        found = words(text)
        size = self.min_words
        return {tuple(found[i : i + size]) for i in range(len(found) - size + 1)}


def _noted(context: AssistantContext) -> list[Episode]:
    """The recalled episodes of this person with a lesson (only failures have one)."""
    return [
        recalled.episode
        for recalled in context.recalled
        if recalled.episode.lesson and recalled.episode.requester_id == context.requester_id
    ]
