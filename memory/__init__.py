"""Episodic memory validated by people's reactions: store, ledger, recall, forgetting.

Imports neither Slack nor any LLM client: what it needs from a model it takes as a
small protocol (:class:`FailureReflector`, :class:`ImportanceScorer`,
:class:`EpisodeSummarizer`).
"""

from memory.advice import Advice, PlanAdvisor
from memory.callers import (
    AgentMemory,
    ConsolidationSource,
    Counting,
    Erasure,
    ExchangeLedger,
    Installations,
    Questions,
    Reasons,
    Recall,
    ReflectionQueue,
    VoteRecorder,
)
from memory.config import Fusion, HybridRecall, MemoryConfig, RecallWeights
from memory.consolidation import ConsolidationReport, Consolidator, EpisodeSummarizer
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
from memory.reflection import (
    FailureReflector,
    ImportanceScorer,
    ReflectionReport,
    ReflectionWorker,
)
from memory.store import MemoryStore
from memory.working import WorkingMemory

__all__ = [
    "Advice",
    "AgentMemory",
    "ConsolidationReport",
    "ConsolidationSource",
    "Consolidator",
    "ConversationKind",
    "Counting",
    "Episode",
    "EpisodeStatus",
    "EpisodeSummarizer",
    "Erasure",
    "ExchangeLedger",
    "ExportedVote",
    "FailureReflector",
    "ForgetReport",
    "Fusion",
    "HybridRecall",
    "ImportanceScorer",
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
    "ReflectionQueue",
    "ReflectionReport",
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
