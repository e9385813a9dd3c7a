"""Who may see what the bot keeps about a person, and in which conversation: the one rule.

Every reader of people's data asks this module (the full-text index when it files an
episode, recall, the plan advisor, the ``recall_my_memories`` tool, working notes):

- a validated episode (👍 or 👎) is seen by the person who asked, in the conversation it
  came from, and by nobody else, anywhere else;
- with ``share_channel_successes``, a *channel's* successes are also seen by everyone asking
  in that channel; never a DM's, never a failure, never a pending exchange;
- a wisdom note is seen by the person it was distilled for, in its conversation;
- working notes are seen by the person whose turn wrote them, in that thread only.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from memory.models import ConversationKind, Episode, EpisodeStatus, Scope, WisdomNote

VALIDATED = frozenset({EpisodeStatus.SUCCESS, EpisodeStatus.FAILURE})
"""The statuses of episodes that count as experience; pending ones are never seen."""


def working_notes_owner(thread: str, user_id: str) -> tuple[str, str]:
    """The partition of working notes: one person in one thread."""
    return (thread, user_id)


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
        """Whether ``viewer_id``, asking in ``scope``, may be shown ``episode``."""
        if episode.scope != scope or episode.status not in VALIDATED:
            return False
        if episode.requester_id == viewer_id:
            return True
        return self.shares_in(scope) and self.shareable(episode)

    @staticmethod
    def may_see_note(note: WisdomNote, *, viewer_id: str, scope: Scope) -> bool:
        """Whether ``viewer_id``, asking in ``scope``, may be shown the wisdom note."""
        return note.scope == scope and note.user_id == viewer_id
