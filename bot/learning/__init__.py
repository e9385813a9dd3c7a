"""Model-backed implementations of the protocols in :mod:`memory.protocols`.

Each takes any :class:`bot.agent.provider.Provider`, asks one short, specific question, and
parses the reply robustly, raising :class:`UnusableReply` rather than storing nonsense.
"""

from bot.learning.parsing import UnusableReply
from bot.learning.reflector import LLMFailureReflector
from bot.learning.scorer import LLMImportanceScorer
from bot.learning.summarizer import LLMEpisodeSummarizer

__all__ = [
    "LLMEpisodeSummarizer",
    "LLMFailureReflector",
    "LLMImportanceScorer",
    "UnusableReply",
]
