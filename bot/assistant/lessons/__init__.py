"""Model-backed implementations of what memory asks of a model (the protocols of
:mod:`memory.learning`: a failure reflector, an importance scorer, an episode summarizer).

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
