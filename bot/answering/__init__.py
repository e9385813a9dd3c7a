"""The domain service that answers one person's message (Slack-agnostic listeners call it)."""

from bot.answering.history import BotIdentity, thread_history
from bot.answering.incoming import IncomingMessage
from bot.answering.inflight import InFlight
from bot.answering.service import (
    AT_CAPACITY,
    MODEL_UNAVAILABLE,
    AnswerAgent,
    AnswerOutcome,
    AnswerService,
)

__all__ = [
    "AT_CAPACITY",
    "MODEL_UNAVAILABLE",
    "AnswerAgent",
    "AnswerOutcome",
    "AnswerService",
    "BotIdentity",
    "InFlight",
    "IncomingMessage",
    "thread_history",
]
