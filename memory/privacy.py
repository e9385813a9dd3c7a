"""Who may see what the bot keeps about a person, and in which conversation: the one rule
(README.md, *Privacy*), and the keys of recall's partitions (memory/README.md, *Privacy
partitions and their keys*)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from memory.models import ConversationKind, Episode, EpisodeStatus, RecallRequest, Scope, WisdomNote

if TYPE_CHECKING:
    from memory.config import MemoryConfig

VALIDATED = frozenset({EpisodeStatus.SUCCESS, EpisodeStatus.FAILURE})
"""The statuses of episodes that count as experience; pending ones are never seen."""


class Visibility(BaseModel):
    """The rule, with the one setting that widens it (``SHARE_CHANNEL_SUCCESSES``)."""

    model_config = ConfigDict(frozen=True)

    share_channel_successes: bool = False

    @staticmethod
    def shareable(episode: Episode) -> bool:
        """Whether the episode may ever be shared: a success in a channel."""
        return (
            episode.status is EpisodeStatus.SUCCESS
            and episode.scope.kind is ConversationKind.CHANNEL
        )

    def shares_in(self, scope: Scope) -> bool:
        """Whether asking in ``scope`` also sees the channel's shared successes."""
        return self.share_channel_successes and scope.kind is ConversationKind.CHANNEL

    def may_see(self, episode: Episode, *, viewer_id: str, scope: Scope) -> bool:
        if episode.scope != scope or episode.status not in VALIDATED:
            return False
        if episode.requester_id == viewer_id:
            return True
        return self.shares_in(scope) and self.shareable(episode)

    @staticmethod
    def may_see_note(note: WisdomNote, *, viewer_id: str, scope: Scope) -> bool:
        return note.scope == scope and note.user_id == viewer_id


def _key(kind: str, scope: Scope, *parts: str) -> str:
    # Outside an org, the keys are those they were before orgs were in them.
    workspace = [scope.enterprise_id, scope.team_id] if scope.enterprise_id else [scope.team_id]
    digest = hashlib.sha256("\x1f".join([*workspace, *parts]).encode()).digest()
    return kind + str(int.from_bytes(digest[:8], "big"))


def personal_key(scope: Scope, user_id: str) -> str:
    """The partition of one person's exchanges in one conversation."""
    return _key("1", scope, scope.channel_id, scope.kind.value, user_id)


def channel_key(scope: Scope) -> str:
    """The successes of a channel that its members share (when sharing is enabled)."""
    return _key("2", scope, scope.channel_id)


def partition_keys(request: RecallRequest, config: MemoryConfig) -> list[str]:
    """The keys of the partitions the asker may recall from."""
    keys = [personal_key(request.scope, request.requester_id)]
    if config.visibility.shares_in(request.scope):
        keys.append(channel_key(request.scope))
    return keys
