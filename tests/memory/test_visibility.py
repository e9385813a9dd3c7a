"""The visibility rule: who may see which episode and note, in which conversation."""

from __future__ import annotations

import pytest
from memory_helpers import CHANNEL, DM, T0

from memory import Episode, EpisodeStatus, Scope, Visibility, WisdomNote
from tests.episodes import make_episode

OTHER_CHANNEL = Scope(team_id="T1", channel_id="C200", kind=CHANNEL.kind)


def episode(status: EpisodeStatus, *, scope: Scope = CHANNEL, user: str = "U1") -> Episode:
    return make_episode(status=status, scope=scope, requester_id=user, created_at=T0)


@pytest.mark.parametrize("sharing", [False, True])
def test_the_asker_sees_their_validated_episodes_in_their_conversation_only(
    sharing: bool,
) -> None:
    rule = Visibility(share_channel_successes=sharing)
    for status in (EpisodeStatus.SUCCESS, EpisodeStatus.FAILURE):
        assert rule.may_see(episode(status), viewer_id="U1", scope=CHANNEL)
        assert not rule.may_see(episode(status), viewer_id="U1", scope=OTHER_CHANNEL)
        assert not rule.may_see(episode(status, scope=DM), viewer_id="U1", scope=CHANNEL)
    assert not rule.may_see(episode(EpisodeStatus.PENDING), viewer_id="U1", scope=CHANNEL)


@pytest.mark.parametrize("sharing", [False, True])
def test_only_a_channel_success_is_ever_shared_and_only_when_enabled(sharing: bool) -> None:
    rule = Visibility(share_channel_successes=sharing)

    assert rule.may_see(episode(EpisodeStatus.SUCCESS), viewer_id="U2", scope=CHANNEL) is sharing
    assert not rule.may_see(episode(EpisodeStatus.FAILURE), viewer_id="U2", scope=CHANNEL)
    assert not rule.may_see(episode(EpisodeStatus.PENDING), viewer_id="U2", scope=CHANNEL)
    dm_success = episode(EpisodeStatus.SUCCESS, scope=DM)
    assert not rule.may_see(dm_success, viewer_id="U2", scope=DM)
    assert not Visibility.shareable(dm_success)


def test_a_wisdom_note_is_its_owners_in_its_conversation() -> None:
    note = WisdomNote(id=1, scope=CHANNEL, user_id="U1", text="t", episode_count=2, created_at=T0)

    assert Visibility.may_see_note(note, viewer_id="U1", scope=CHANNEL)
    assert not Visibility.may_see_note(note, viewer_id="U2", scope=CHANNEL)
    assert not Visibility.may_see_note(note, viewer_id="U1", scope=OTHER_CHANNEL)
