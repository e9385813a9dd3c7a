"""Episodic memory validated by people's reactions: store, ledger, recall, forgetting.

Imports neither Slack nor any LLM client: what it needs from a model it takes as a
small protocol (see :mod:`memory.protocols`).
"""

from memory.config import MemoryConfig, RecallWeights
from memory.models import (
    ConversationKind,
    Episode,
    EpisodeStatus,
    ForgetReport,
    NewExchange,
    RecalledEpisode,
    RecallRequest,
    Scope,
    StoreStats,
    UserExport,
    Vote,
    VoteEvent,
    VoteOutcome,
    WisdomNote,
)
from memory.open import open_store
from memory.store import MemoryStore

__all__ = [
    "ConversationKind",
    "Episode",
    "EpisodeStatus",
    "ForgetReport",
    "MemoryConfig",
    "MemoryStore",
    "NewExchange",
    "RecallRequest",
    "RecallWeights",
    "RecalledEpisode",
    "Scope",
    "StoreStats",
    "UserExport",
    "Vote",
    "VoteEvent",
    "VoteOutcome",
    "WisdomNote",
    "open_store",
]
