"""Which earlier answers, rated by the asker, the answer to their message drew on, as links
they may follow (:func:`bot.views.learned.learned_from_block`).

The privacy rule, applied again here because a link shows where a memory came from: only
the asker's own answers in this very conversation are linked (never one shared by another
person with ``SHARE_CHANNEL_SUCCESSES``, nor one from another conversation), and only
through ``chat.getPermalink``, which links a message its reader can already open.
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.answering.incoming import IncomingMessage
from bot.views.learned import RatedAnswer
from memory import ExchangeLedger, RecalledEpisode

__all__ = ["MAX_LINKED", "rated_answers"]

log = logging.getLogger(__name__)

MAX_LINKED = 3
"""Earlier answers linked under one answer at most (the most relevant first)."""


async def rated_answers(
    memory: ExchangeLedger,
    client: AsyncWebClient,
    message: IncomingMessage,
    recalled: list[RecalledEpisode],
) -> list[RatedAnswer]:
    """The asker's own rated answers in this conversation among ``recalled``, linked; an
    answer whose message left the ledger (older than ``LEDGER_TTL_DAYS``) or that Slack
    cannot link is left out."""
    own = [
        item.episode
        for item in recalled
        if item.episode.requester_id == message.user_id and item.episode.scope == message.scope
    ][:MAX_LINKED]
    if not own:
        return []
    first_parts = await memory.first_parts([episode.id for episode in own])
    linked: list[RatedAnswer] = []
    for episode in own:
        ts = first_parts.get(episode.id)
        if ts is None:
            continue
        try:
            found = await client.chat_getPermalink(channel=episode.scope.channel_id, message_ts=ts)
        except SlackApiError as error:
            log.info("no link to an earlier answer: %s", error.response.get("error"))
            continue
        linked.append(RatedAnswer(status=episode.status, permalink=str(found["permalink"])))
    return linked
