"""The agent surface's extras around an answer: suggested prompts and the greeting.

Both are courtesies: when Slack refuses them (a workspace without the agent or assistant
experience answers ``not_allowed``...), the refusal is logged by its code and nothing else
changes.
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.views.suggested_prompts import GREETING, PROMPTS_TITLE, suggested_prompts
from memory import ConversationKind, EpisodeStatus, MemoryStore, Scope

__all__ = ["PROMPT_CANDIDATES", "greet", "suggest_prompts"]

log = logging.getLogger(__name__)

PROMPT_CANDIDATES = 20
"""Latest 👍 exchanges read to pick the (at most four, distinct) suggested prompts."""


async def suggest_prompts(
    client: AsyncWebClient,
    memory: MemoryStore,
    *,
    team_id: str,
    channel_id: str,
    user_id: str,
    thread_ts: str | None = None,
    enterprise_id: str = "",
) -> None:
    """Set suggested prompts in ``user_id``'s DM ``channel_id`` from their own 👍 exchanges
    in that DM only. ``thread_ts`` is for the legacy assistant experience: with the agent
    experience the prompts go to the top of the Messages tab, and a ``thread_ts`` there
    would make Slack silently drop them."""
    scope = Scope(
        team_id=team_id,
        channel_id=channel_id,
        kind=ConversationKind.DM,
        enterprise_id=enterprise_id,
    )
    successes = await memory.list_episodes(
        user_id,
        scope=scope,
        statuses=frozenset({EpisodeStatus.SUCCESS}),
        limit=PROMPT_CANDIDATES,
    )
    prompts = [prompt.model_dump() for prompt in suggested_prompts(successes)]
    try:
        await client.assistant_threads_setSuggestedPrompts(
            channel_id=channel_id, thread_ts=thread_ts, title=PROMPTS_TITLE, prompts=prompts
        )
    except SlackApiError as error:
        log.info("suggested prompts not set: %s", error.response.get("error"))


async def greet(client: AsyncWebClient, *, channel_id: str, thread_ts: str) -> None:
    """Say hello at the top of a new assistant thread (never recorded: not an answer)."""
    try:
        await client.chat_postMessage(channel=channel_id, thread_ts=thread_ts, text=GREETING)
    except SlackApiError as error:
        log.info("greeting not posted: %s", error.response.get("error"))
