"""The domain service that answers one person's message (Slack-agnostic listeners call it)."""

from bot.answering.history import BotIdentity, thread_history
from bot.answering.incoming import IncomingMessage
from bot.answering.inflight import InFlight
from bot.answering.patience import STORE_UNAVAILABLE
from bot.answering.service import (
    MODEL_UNAVAILABLE,
    AnswerAgent,
    AnswerOutcome,
    AnswerService,
)
from bot.answering.waiting_line import Declined, WaitingLine

__all__ = [
    "MODEL_UNAVAILABLE",
    "STORE_UNAVAILABLE",
    "AnswerAgent",
    "AnswerOutcome",
    "AnswerService",
    "BotIdentity",
    "Declined",
    "InFlight",
    "IncomingMessage",
    "WaitingLine",
    "thread_history",
]
