"""Per-turn retry budget of identical tool calls.

The guard stops the model looping on malformed output; the budget bounds the worst case
for everything else: the same ``(tool, canonical arguments)`` runs at most N times a turn.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from pydantic import BaseModel

__all__ = ["READ_ONLY_BUDGET", "SIDE_EFFECT_BUDGET", "RetryBudget", "call_signature"]

READ_ONLY_BUDGET = 3
SIDE_EFFECT_BUDGET = 1


def call_signature(tool_name: str, args: BaseModel) -> str:
    """A stable hash of a tool name and its validated arguments (key order ignored)."""
    canonical = json.dumps(
        args.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(f"{tool_name}\x00{canonical}".encode()).hexdigest()


class RetryBudget:
    """How many times each identical call may still run this turn; ``None`` is unlimited."""

    def __init__(
        self,
        *,
        read_only: int | None = READ_ONLY_BUDGET,
        side_effects: int | None = SIDE_EFFECT_BUDGET,
    ) -> None:
        self._limits = {False: read_only, True: side_effects}
        self._spent: Counter[str] = Counter()

    def spend(self, signature: str, *, side_effects: bool) -> bool:
        """Count one run of this call; False (and nothing counted) when over budget."""
        limit = self._limits[side_effects]
        if limit is not None and self._spent[signature] >= limit:
            return False
        self._spent[signature] += 1
        return True
