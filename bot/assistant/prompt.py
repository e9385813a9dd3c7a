"""What the model is told: the system instructions, and past experience with the person.

Experience is written so that a small model can follow it (``benchmarks/learning.py`` chose
this form by measurement, see ``benchmarks/README.md``): an answer the person rejected (👎)
appears only as its lesson, what to do this time, never with its own text (quoting it primed
models to give it again); an answer they approved (👍) appears whole, as the answer to give
again.
"""

from __future__ import annotations

from memory import Advice, Episode
from memory.text import shorten

__all__ = ["EXPERIENCE_HEADING", "SYSTEM_PROMPT", "render_experience"]

SYSTEM_PROMPT = """\
You are a helpful assistant in a Slack workspace. People ask you questions in direct \
messages and by mentioning you in channels.

- Answer the question directly and concisely; lead with the answer, then the detail.
- Write Slack mrkdwn, not Markdown: *bold*, _italic_, `code`, ```code blocks```, \
bullet lists with "•" or "-". No headings, no tables, and links as <https://url|text>.
- Use a tool when you need facts you don't have (the thread, a person, the date, what \
worked for this person before). Don't invent tool results.
- If a tool reports an error, follow its hint; never repeat a call that failed the same way. \
If you can't get the data, say plainly what you couldn't do.
- Notes from earlier conversations with this person may follow. Follow them, and never \
mention them.
- If the question is ambiguous, ask one short clarifying question instead of guessing."""

EXPERIENCE_HEADING = "Notes on this person's earlier questions"

_MAX_FIELD_CHARS = 400
_NO_LESSON_YET = "give a different answer from the one you gave then."


def _clip(text: str) -> str:
    return shorten(text, _MAX_FIELD_CHARS)


def _failure(episode: Episode) -> str:
    instead = _clip(episode.lesson) if episode.lesson else _NO_LESSON_YET
    return (
        f"- They asked “{_clip(episode.question)}” and your answer did not help them. "
        f"This time: {instead}"
    )


def _success(episode: Episode) -> str:
    return (
        f"- They asked “{_clip(episode.question)}” and this answer worked for them; "
        f"give it again if it fits: {_clip(episode.answer)}"
    )


def render_experience(advice: Advice) -> str:
    """The system-message section of validated experience; empty when there is none."""
    lines = [
        *map(_failure, advice.failures),
        *map(_success, advice.successes),
        *(f"- {_clip(note.text)}" for note in advice.wisdom),
    ]
    if not lines:
        return ""
    return "\n".join([f"{EXPERIENCE_HEADING}:", *lines])
