"""Episodic memory validated by people's reactions: store, ledger, recall, forgetting.

Imports neither Slack nor any LLM client: what it needs from a model it takes as a small
protocol (:mod:`memory.learning`).
"""

from memory.callers import (
    AgentMemory,
    Counting,
    Erasure,
    ExchangeLedger,
    Installations,
    Questions,
    Reasons,
    Recall,
    VoteRecorder,
)
from memory.config import Fusion, HybridRecall, MemoryConfig, RecallWeights
from memory.learning import (
    Advice,
    ConsolidationReport,
    Consolidator,
    PlanAdvisor,
    ReflectionWorker,
)
from memory.models import (
    ConversationKind,
    Episode,
    EpisodeStatus,
    ExportedVote,
    ForgetReport,
    ImportedEpisode,
    InstallationRecord,
    NewExchange,
    NewQuestion,
    PendingQuestion,
    RecalledEpisode,
    RecallRequest,
    Scope,
    StoreClosed,
    StoreError,
    StoreStats,
    StoreUnavailable,
    UserExport,
    Vote,
    VoteEvent,
    VoteOutcome,
    WisdomNote,
    WorkspaceReport,
)
from memory.open import open_store
from memory.privacy import Visibility
from memory.store import MemoryStore
from memory.working import WorkingMemory

__all__ = [
    "Advice",
    "AgentMemory",
    "ConsolidationReport",
    "Consolidator",
    "ConversationKind",
    "Counting",
    "Episode",
    "EpisodeStatus",
    "Erasure",
    "ExchangeLedger",
    "ExportedVote",
    "ForgetReport",
    "Fusion",
    "HybridRecall",
    "ImportedEpisode",
    "InstallationRecord",
    "Installations",
    "MemoryConfig",
    "MemoryStore",
    "NewExchange",
    "NewQuestion",
    "PendingQuestion",
    "PlanAdvisor",
    "Questions",
    "Reasons",
    "Recall",
    "RecallRequest",
    "RecallWeights",
    "RecalledEpisode",
    "ReflectionWorker",
    "Scope",
    "StoreClosed",
    "StoreError",
    "StoreStats",
    "StoreUnavailable",
    "UserExport",
    "Visibility",
    "Vote",
    "VoteEvent",
    "VoteOutcome",
    "VoteRecorder",
    "WisdomNote",
    "WorkingMemory",
    "WorkspaceReport",
    "open_store",
]
