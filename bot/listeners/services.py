"""What the listeners are handed by :mod:`bot.app`: one field per collaborator, no logic."""

from __future__ import annotations

from dataclasses import dataclass

from bot.answering import AnswerService, BotIdentity, InFlight
from bot.answering.kept_questions import KeptQuestions
from bot.assistant.forgetting import Forgetting
from bot.assistant.reasons import Reasons
from bot.assistant.voting import Votes
from bot.oauth.revocations import RevokedTokens
from bot.observability import Observer
from memory import MemoryStore

__all__ = ["Services"]


@dataclass
class Services:
    answering: AnswerService
    memory: MemoryStore
    identity: BotIdentity | None
    """The bot in its one workspace; None in OAuth mode, where each event names its own
    (see :mod:`bot.listeners.workspace`)."""
    votes: Votes
    reasons: Reasons
    forgetting: Forgetting
    inflight: InFlight
    kept: KeptQuestions
    """Questions kept until answered: keeping one before its acknowledgement, finishing it."""
    observer: Observer
    revoked: RevokedTokens
    """Tokens Slack revoked: no Web API call goes out with them (OAuth mode)."""
    """Logs one line per handled event (the answering, votes and forgetting log theirs)."""
