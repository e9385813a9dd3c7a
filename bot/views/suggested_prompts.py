"""Suggested prompts for the Messages tab and new assistant threads, and the greeting.

The prompts are the person's own questions that earned a 👍 in this DM (newest first), so
one click asks again what worked; with none yet, a few that show what the bot does. The
caller passes only the asker's own successes in the DM the prompts appear in.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from bot.views.limits import clip
from memory import Episode

__all__ = [
    "DEFAULT_PROMPTS",
    "GREETING",
    "MAX_PROMPTS",
    "PROMPTS_TITLE",
    "PROMPT_TITLE_LIMIT",
    "SuggestedPrompt",
    "suggested_prompts",
]

MAX_PROMPTS = 4
"""Slack shows up to four suggested prompts."""
PROMPT_TITLE_LIMIT = 75
"""A prompt's title is a button label: kept as short as Block Kit's button text."""
PROMPT_MESSAGE_LIMIT = 2000
PROMPTS_TITLE = "How can I help you today?"
GREETING = (
    "Hi! Ask me anything. React 👍 to an answer that helped and 👎 to one that did not: "
    "I remember what worked for you, and the lesson from what did not."
)


class SuggestedPrompt(BaseModel):
    """One prompt as ``assistant.threads.setSuggestedPrompts`` takes it."""

    title: str
    message: str


DEFAULT_PROMPTS = (
    SuggestedPrompt(
        title="What can you do?",
        message="What can you help me with, and how do you learn from my reactions?",
    ),
    SuggestedPrompt(
        title="What do you remember about me?",
        message="How do I see what you remember about me, and how do I make you forget it?",
    ),
)


def suggested_prompts(successes: Sequence[Episode]) -> list[SuggestedPrompt]:
    """Up to four of ``successes``' questions (each once), else :data:`DEFAULT_PROMPTS`."""
    prompts: list[SuggestedPrompt] = []
    seen: set[str] = set()
    for episode in successes:
        question = " ".join(episode.question.split())
        if not question or question.casefold() in seen:
            continue
        seen.add(question.casefold())
        prompts.append(
            SuggestedPrompt(
                title=clip(question, PROMPT_TITLE_LIMIT),
                message=clip(episode.question.strip(), PROMPT_MESSAGE_LIMIT),
            )
        )
        if len(prompts) == MAX_PROMPTS:
            break
    return prompts or list(DEFAULT_PROMPTS)
