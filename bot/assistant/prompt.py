"""What the model is told: the system instructions, and past experience with the person."""

from __future__ import annotations

from collections.abc import Sequence

from memory import EpisodeStatus, RecalledEpisode
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
- A section of past experience may follow. Reuse what worked for this person; never repeat \
an answer they marked as not working, and follow its lesson.
- If the question is ambiguous, ask one short clarifying question instead of guessing."""

EXPERIENCE_HEADING = "Past experience with this person (validated by their reactions)"

_MAX_FIELD_CHARS = 400


def _clip(text: str) -> str:
    return shorten(text, _MAX_FIELD_CHARS)


def _line(recalled: RecalledEpisode) -> str | None:
    episode = recalled.episode
    exchange = f"Q: {_clip(episode.question)} A: {_clip(episode.answer)}"
    if episode.status is EpisodeStatus.SUCCESS:
        return f"- 👍 worked: {exchange}"
    if episode.status is EpisodeStatus.FAILURE:
        lesson = f" Lesson: {_clip(episode.lesson)}" if episode.lesson else ""
        return f"- 👎 did not work: {exchange}{lesson}"
    return None  # pending exchanges are never experience


def render_experience(recalled: Sequence[RecalledEpisode], advice: str | None) -> str:
    """The system-message section of validated experience; empty when there is none.

    ``advice`` is free text distilled from earlier failures (wisdom notes), if any."""
    lines = [line for line in map(_line, recalled) if line is not None]
    if advice and advice.strip():
        lines.append(f"Advice: {advice.strip()}")
    if not lines:
        return ""
    return "\n".join([f"{EXPERIENCE_HEADING}:", *lines])
