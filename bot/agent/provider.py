"""The interface every LLM provider implements, and the one error the loop expects of it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from bot.agent.messages import Completion, CompletionRequest, Delta

__all__ = ["ModelUnavailable", "Provider"]


class ModelUnavailable(Exception):
    """The model could not answer (down, overloaded, timed out) after bounded retries.

    Never shown to a person as is: the bot turns it into one short sentence."""

    permanent: bool = False
    """True when retrying cannot help (the model server refused the credentials or does not
    know the model): an operator must fix the configuration."""


class Provider(Protocol):
    async def complete(self, request: CompletionRequest) -> Completion: ...

    def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        """Yield deltas; the last one carries the whole :class:`Completion` in ``final``."""
        ...
