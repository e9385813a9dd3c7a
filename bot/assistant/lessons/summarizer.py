"""An :class:`memory.learning.EpisodeSummarizer` that asks the model."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from bot.agent.provider import Provider
from bot.assistant.lessons.asking import ask
from bot.assistant.lessons.parsing import parse_notes
from memory.models import Episode, EpisodeStatus
from memory.text import shorten

__all__ = ["LLMEpisodeSummarizer"]

SUMMARY_PROMPT = """\
Below are past exchanges between one person and a Slack assistant. Each is marked 👍 (the \
person approved the answer) or 👎 (the person rejected it, with the lesson drawn from it). \
Write at most {max_notes} short, general notes, one sentence each, that will help the \
assistant answer this person better next time: their preferences, what works, what to avoid. \
Do not restate individual questions. Reply with a JSON array of strings only.\
"""


@dataclass(frozen=True)
class LLMEpisodeSummarizer:
    """Distils episodes into notes; raises when the model fails or replies with no notes.

    Each question, answer and lesson is shortened to ``max_input_chars`` in the prompt; the
    number of episodes is bounded by the caller (:class:`memory.Consolidator`).
    """

    provider: Provider
    _: KW_ONLY
    max_notes: int = 5
    max_input_chars: int = 400

    async def summarize(self, episodes: list[Episode]) -> list[str]:
        reply = await ask(
            self.provider,
            instructions=SUMMARY_PROMPT.format(max_notes=self.max_notes),
            prompt="\n\n".join(
                self._describe(number, episode) for number, episode in enumerate(episodes, start=1)
            ),
            max_tokens=600,
            temperature=0.2,
        )
        return parse_notes(reply)

    def _describe(self, number: int, episode: Episode) -> str:
        mark = "👍" if episode.status is EpisodeStatus.SUCCESS else "👎"
        lines = [
            f"{number}. {mark}",
            f"Q: {shorten(episode.question, self.max_input_chars)}",
            f"A: {shorten(episode.answer, self.max_input_chars)}",
        ]
        if episode.lesson:
            lines.append(f"Lesson: {shorten(episode.lesson, self.max_input_chars)}")
        return "\n".join(lines)
