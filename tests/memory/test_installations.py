"""Installations and OAuth states: kept in the store, so replicas sharing it agree."""

from __future__ import annotations

from datetime import timedelta

from memory_helpers import T0

from memory import InstallationRecord, MemoryStore


def record(team: str, user: str, token: str, *, minutes: int = 0) -> InstallationRecord:
    return InstallationRecord(
        enterprise_id="E1",
        team_id=team,
        user_id=user,
        data={"bot_token": token, "team_id": team, "scopes": ["chat:write"]},
        installed_at=T0 + timedelta(minutes=minutes),
    )


async def test_a_saved_installation_is_found_by_its_ids(store: MemoryStore) -> None:
    await store.save_installation(record("T1", "U1", "xoxb-1"))
    found = await store.find_installation(enterprise_id="E1", team_id="T1", user_id="U1")
    assert found == record("T1", "U1", "xoxb-1")
    assert await store.find_installation(enterprise_id="E1", team_id="T2", user_id="U1") is None
    assert await store.find_installation(enterprise_id="", team_id="T1", user_id="U1") is None


async def test_without_a_user_the_latest_installer_is_found_never_the_bot(
    store: MemoryStore,
) -> None:
    await store.save_installation(record("T1", "U1", "xoxb-old", minutes=1))
    await store.save_installation(record("T1", "U2", "xoxb-new", minutes=2))
    await store.save_installation(record("T1", "", "xoxb-bot", minutes=3))
    latest = await store.find_installation(enterprise_id="E1", team_id="T1", user_id=None)
    assert latest is not None and latest.user_id == "U2"
    bot = await store.find_installation(enterprise_id="E1", team_id="T1", user_id="")
    assert bot is not None and bot.data["bot_token"] == "xoxb-bot"


async def test_saving_again_replaces_the_record(store: MemoryStore) -> None:
    await store.save_installation(record("T1", "U1", "xoxb-1"))
    await store.save_installation(record("T1", "U1", "xoxb-rotated", minutes=5))
    found = await store.find_installation(enterprise_id="E1", team_id="T1", user_id="U1")
    assert found is not None and found.data["bot_token"] == "xoxb-rotated"


async def test_deleting_one_user_leaves_the_rest_and_the_other_workspace(
    store: MemoryStore,
) -> None:
    for team in ("T1", "T2"):
        for user in ("", "U1", "U2"):
            await store.save_installation(record(team, user, f"xoxb-{team}"))
    assert await store.delete_installations(enterprise_id="E1", team_id="T1", user_id="U1") == 1
    assert await store.find_installation(enterprise_id="E1", team_id="T1", user_id="U1") is None
    assert await store.find_installation(enterprise_id="E1", team_id="T1", user_id="U2")
    assert await store.delete_installations(enterprise_id="E1", team_id="T1") == 2
    for user in ("", "U2"):
        assert not await store.find_installation(enterprise_id="E1", team_id="T1", user_id=user)
        assert await store.find_installation(enterprise_id="E1", team_id="T2", user_id=user)


async def test_an_oauth_state_is_good_once_and_until_it_expires(store: MemoryStore) -> None:
    await store.issue_oauth_state("s1", expires_at=T0 + timedelta(minutes=10), now=T0)
    await store.issue_oauth_state("s2", expires_at=T0 + timedelta(minutes=10), now=T0)
    assert await store.consume_oauth_state("s1", now=T0 + timedelta(minutes=1))
    assert not await store.consume_oauth_state("s1", now=T0 + timedelta(minutes=1))
    assert not await store.consume_oauth_state("never-issued", now=T0)
    assert not await store.consume_oauth_state("s2", now=T0 + timedelta(minutes=11))
