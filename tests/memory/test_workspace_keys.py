"""Scopes and partition keys carry the workspace and its Enterprise Grid org; the keys of
a scope outside any org are those the store wrote before orgs were in them, so existing
single-workspace data stays readable without re-filing anything."""

from __future__ import annotations

import hashlib

from memory_helpers import T0, Memory

from memory import ConversationKind, InstallationRecord, Scope
from memory.privacy import channel_key, personal_key

PLAIN = Scope(team_id="T1", channel_id="D1", kind=ConversationKind.DM)


def legacy_key(kind: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return kind + str(int.from_bytes(digest[:8], "big"))


def test_keys_outside_an_org_are_unchanged() -> None:
    assert personal_key(PLAIN, "U1") == legacy_key("1", "T1", "D1", "dm", "U1")
    assert channel_key(PLAIN) == legacy_key("2", "T1", "D1")


def test_the_org_and_the_team_each_change_the_key() -> None:
    in_org = PLAIN.model_copy(update={"enterprise_id": "E1"})
    other_team = PLAIN.model_copy(update={"team_id": "T2"})
    keys = {personal_key(scope, "U1") for scope in (PLAIN, in_org, other_team)}
    assert len(keys) == 3


async def test_one_person_in_two_workspaces_of_an_org_recalls_each_only_there(
    memory: Memory,
) -> None:
    one = Scope(team_id="T1", channel_id="D1", kind=ConversationKind.DM, enterprise_id="E1")
    two = one.model_copy(update={"team_id": "T2"})
    taught = await memory.answered("how do I open the walrus vault?", scope=one, user="U1")
    [stored] = await memory.store.list_episodes("U1")
    assert stored.scope == one, "the org is stored with the episode"
    assert [r.episode.id for r in await memory.recall("walrus vault", scope=one)] == [taught.id]
    assert await memory.recall("walrus vault", scope=two) == []
    assert await memory.recall("walrus vault", scope=PLAIN) == []


async def test_a_workspace_installed_in_an_org_keeps_what_it_taught_before(
    memory: Memory,
) -> None:
    """Single-token mode kept the workspace's memories without its org; its first
    installation in OAuth mode, which names the org, moves them into the org's scopes."""
    store = memory.store
    taught = await memory.answered("how do I open the walrus vault?", scope=PLAIN, user="U1")
    await store.replace_wisdom(PLAIN, "U1", ["Walruses first."], episode_count=1, at=T0)
    in_org = PLAIN.model_copy(update={"enterprise_id": "E1"})
    await store.save_installation(
        InstallationRecord(enterprise_id="E1", team_id="T1", data={}, installed_at=T0)
    )
    assert [r.episode.id for r in await memory.recall("walrus vault", scope=in_org)] == [taught.id]
    assert await memory.recall("walrus vault", scope=PLAIN) == []
    assert [note.text for note in await store.wisdom(in_org, "U1")] == ["Walruses first."]
