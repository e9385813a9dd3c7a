"""What the core knows about the turn it runs: where the conversation continues, and when.

An application subclasses :class:`TurnContext` to give its tools, evaluators and callbacks
what they need (the asker, a store, lookups), like pydantic-ai's ``RunContext`` deps.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

__all__ = ["TurnContext"]


@dataclass
class TurnContext:
    """Handed to every tool, evaluator and callback of a turn."""

    thread: str
    """Where the conversation continues (the loop detector remembers failed calls per thread)."""
    now: datetime
