"""Opaque full-text tokens naming a recall partition.

Each validated episode is indexed with the token of its asker's partition, and (a channel
success) the token of its channel, so a recall query can name its partition inside the
full-text match. Tokens are a hash in decimal digits: no stemmer rule ends in a digit, so
the tokenizer keeps them whole, and they never collide with real words.
"""

from __future__ import annotations

import hashlib

from memory.models import Scope

__all__ = ["channel_token", "personal_token"]


def _token(prefix: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return prefix + str(int.from_bytes(digest[:12], "big"))


def personal_token(scope: Scope, user_id: str) -> str:
    """The partition of one person's exchanges in one conversation."""
    return _token("u", scope.team_id, scope.channel_id, scope.kind.value, user_id)


def channel_token(scope: Scope) -> str:
    """The successes of a channel that its members share (when sharing is enabled)."""
    return _token("c", scope.team_id, scope.channel_id)
