"""Keys naming recall partitions, written before every word the full-text index holds
(by every backend: SQLite's FTS5 index and PostgreSQL's ``tsvector`` alike).

A validated episode is indexed in its asker's partition (each word as ``<key>_<word>``)
and, a channel success, in its channel's too. A recall query names its partitions the same
way, so FTS5 only ever reads the index entries of the asker's own partition: recall costs
the same however much other people have stored, and BM25's statistics (how rare a word is)
are those of the partition. Keys are decimal digits, so they never collide with words, and
the Porter stemmer, which counts only vowels when it measures a word, stems
``<key>_deploying`` exactly as it stems ``deploying``.
"""

from __future__ import annotations

import hashlib

from memory.config import MemoryConfig
from memory.models import RecallRequest, Scope


def _key(kind: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return kind + str(int.from_bytes(digest[:8], "big"))


def _workspace(scope: Scope) -> list[str]:
    """The org (when on Enterprise Grid) and the workspace: the start of every key. Keys
    outside an org are those they were before orgs were in them."""
    return [scope.enterprise_id, scope.team_id] if scope.enterprise_id else [scope.team_id]


def personal_key(scope: Scope, user_id: str) -> str:
    """The partition of one person's exchanges in one conversation."""
    return _key("1", *_workspace(scope), scope.channel_id, scope.kind.value, user_id)


def channel_key(scope: Scope) -> str:
    """The successes of a channel that its members share (when sharing is enabled)."""
    return _key("2", *_workspace(scope), scope.channel_id)


def partition_keys(request: RecallRequest, config: MemoryConfig) -> list[str]:
    """The keys of the partitions the asker may recall from."""
    keys = [personal_key(request.scope, request.requester_id)]
    if config.visibility.shares_in(request.scope):
        keys.append(channel_key(request.scope))
    return keys
