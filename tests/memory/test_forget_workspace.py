"""Erasing a workspace that uninstalled the app: everything of it goes, nothing of
another workspace does (a person in both keeps the other's), and work that began before
the erasure writes nothing after it."""

from __future__ import annotations

from datetime import timedelta

from memory_helpers import T0, Memory, exchange

from memory import (
    ConversationKind,
    InstallationRecord,
    MemoryStore,
    NewQuestion,
    Scope,
)

ONE = Scope(team_id="T0000ONE", channel_id="D100", kind=ConversationKind.DM)
TWO = Scope(team_id="T0000TWO", channel_id="D100", kind=ConversationKind.DM)
LEASE = timedelta(minutes=1)


async def test_a_workspace_is_erased_and_the_other_kept(memory: Memory, store: MemoryStore) -> None:
    await memory.answered("how do I rotate the vault key?", scope=ONE, user="U1")
    await memory.answered("how do I rotate the vault key?", scope=TWO, user="U1")
    await store.claim("Ev1", "D100:1.0", at=T0, team_id="T0000ONE")
    for team in ("T0000ONE", "T0000TWO"):
        asked = NewQuestion(team_id=team, user_id="U1", received_at=T0, payload="vault?")
        await store.receive_question(asked, f"Ev{team}", lease=LEASE)
    await store.save_installation(
        InstallationRecord(team_id="T0000ONE", data={"bot_token": "x"}, installed_at=T0)
    )
    report = await store.forget_workspace("T0000ONE", at=T0 + timedelta(hours=1))
    assert report.counts["episodes"] == 1
    assert report.counts["votes"] == 1
    assert report.counts["claims"] == 3  # the event's two, and the question's message
    assert report.counts["installations"] == 1
    assert report.counts["questions"] == 1
    [kept] = await store.take_questions(now=T0 + timedelta(hours=1), lease=LEASE, limit=9)
    assert kept.team_id == "T0000TWO"
    assert await store.list_episodes("U1", team_id="T0000ONE") == []
    [left] = await store.list_episodes("U1")
    assert left.scope == TWO
    assert [r.episode.id for r in await memory.recall("vault key", scope=TWO)] == [left.id]
    assert await memory.recall("vault key", scope=ONE) == []
    assert await store.find_installation(enterprise_id="", team_id="T0000ONE", user_id="") is None
    # A claim of the erased workspace is gone: the same event could be handled again.
    assert await store.claim("Ev1", at=T0 + timedelta(hours=2), team_id="T0000ONE")


async def test_an_answer_in_flight_at_the_erasure_records_nothing(store: MemoryStore) -> None:
    started = T0
    await store.forget_workspace("T0000ONE", at=T0 + timedelta(seconds=5))
    in_flight = exchange("q", "a", ts="1.0", scope=ONE, at=started)
    assert await store.record_exchange(in_flight) is None
    elsewhere = in_flight.model_copy(update={"scope": TWO})
    assert await store.record_exchange(elsewhere) is not None


async def test_the_workspaces_erasure_time_counts_for_its_people_only_there(
    store: MemoryStore,
) -> None:
    at = T0 + timedelta(seconds=5)
    await store.forget_workspace("T0000ONE", at=at)
    assert await store.forgotten_at(["U1"], team_id="T0000ONE") == {"U1": at}
    assert await store.forgotten_at(["U1"], team_id="T0000TWO") == {}
