"""Model-backed implementations of what memory asks of a model (:class:`memory.FailureReflector`,
:class:`memory.ImportanceScorer`, :class:`memory.EpisodeSummarizer`).

Each takes any :class:`bot.agent.provider.Provider`, asks one short, specific question, and
parses the reply robustly, raising :class:`UnusableReply` rather than storing nonsense.
"""

from bot.assistant.lessons.parsing import UnusableReply
from bot.assistant.lessons.reflector import LLMFailureReflector
from bot.assistant.lessons.scorer import LLMImportanceScorer
from bot.assistant.lessons.summarizer import LLMEpisodeSummarizer

__all__ = [
    "LLMEpisodeSummarizer",
    "LLMFailureReflector",
    "LLMImportanceScorer",
    "UnusableReply",
]
