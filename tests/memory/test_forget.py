"""Forgetting erases a person's data from every table, and from the bytes on disk."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from memory_helpers import CHANNEL, DM, T0, Memory, exchange

from memory import EpisodeStatus, MemoryConfig, NewQuestion, Vote
from memory.privacy import personal_key
from memory.sql import fence
from tests.stored import disk_bytes

FORGOTTEN = "UFORGETME1"
KEPT = "UKEEPME22"

SECRET_QUESTION = "Where does Quillfeather keep the zanzibarite marmalade recipe?"
SECRET_ANSWER = (
    "Quillfeather stores the zanzibarite marmalade recipe in the vellichor vault. "
    # long enough to spill onto overflow pages
    + "Ossifrage marginalia. " * 300
)
SECRET_LESSON = "Ask Quillfeather about the periwinkle cipher before the vellichor vault."
SECRET_WISDOM = "Quillfeather answers fastest about crumhorn tuning on Tuesdays."
SECRET_REASON = "The gewgaw cupboard was flooded, so the recipe moved."
SECRET_PENDING = "Is the quodlibet ledger still behind the gewgaw cupboard?"
DISTINCTIVE = [
    "Quillfeather",
    "zanzibarite",
    "marmalade",
    "vellichor",
    "Ossifrage",
    "marginalia",
    "periwinkle",
    "crumhorn",
    "gewgaw",
    "quodlibet",
    FORGOTTEN,
]
SURVIVOR_QUESTION = "How do I calibrate the brontosaurus telescope in the observatory?"


def traces(data: bytes, words: list[str]) -> list[str]:
    """Words found in ``data``: as written, lowercased, or as their stem's first 6 letters."""
    found = []
    for word in words:
        forms = {word, word.lower(), word.lower()[:6]}
        if any(form.encode() in data for form in forms):
            found.append(word)
    return found


async def _remember_everything(memory: Memory) -> None:
    """The person asks, votes, gets a lesson and a wisdom note; someone else does too."""
    store = memory.store
    failure = await memory.answered(
        SECRET_QUESTION, SECRET_ANSWER, user=FORGOTTEN, scope=CHANNEL, vote=Vote.DOWN
    )
    await store.give_reason(failure.id, FORGOTTEN, SECRET_REASON, at=T0 + timedelta(minutes=2))
    await store.set_lesson(failure.id, SECRET_LESSON, reason=SECRET_REASON)
    await memory.answered(
        "Is the vellichor vault open on weekends?", "Only Saturdays.", user=FORGOTTEN
    )
    await memory.ask("Quillfeather pending question about crumhorn", user=FORGOTTEN)
    await store.replace_wisdom(DM, FORGOTTEN, [SECRET_WISDOM], episode_count=2, at=T0)
    await store.claim("Ev0QUILLFEATHER", at=T0)
    pending = NewQuestion(team_id="T1", user_id=FORGOTTEN, received_at=T0, payload=SECRET_PENDING)
    await store.receive_question(pending, "Ev0QUODLIBET", lease=timedelta(minutes=1))
    survivor = await memory.answered(SURVIVOR_QUESTION, "Align the finder scope first.", user=KEPT)
    await store.replace_wisdom(DM, KEPT, ["Brontosaurus telescope tips."], episode_count=1, at=T0)
    # the forgotten person also reacted to the survivor's message (not counted nor kept)
    await memory.react(DM, memory.sent[survivor.id][0], FORGOTTEN, "-1", at=T0 + timedelta(hours=1))


async def test_forget_user_leaves_no_bytes_on_disk(memory: Memory, db_path: Path) -> None:
    await _remember_everything(memory)
    before = disk_bytes(db_path)
    assert traces(before, DISTINCTIVE) == DISTINCTIVE  # the search does see stored text
    assert b"Ev0QUILLFEATHER" not in before, "a claim keeps only a keyed hash of its key"

    report = await memory.store.forget_user(FORGOTTEN)

    assert report.counts == {
        "episodes": 3,
        "ledger": 3,
        "votes": 2,
        "wisdom": 1,
        "questions": 1,
    }
    after = disk_bytes(db_path)
    assert traces(after, DISTINCTIVE) == []
    assert SECRET_QUESTION.encode() not in after
    key = personal_key(CHANNEL, FORGOTTEN)
    assert key.encode() not in after
    # the other person's memory is intact, on disk and in recall
    assert traces(after, ["brontosaurus"]) == ["brontosaurus"]
    [recalled] = await memory.recall("calibrating the telescope", user=KEPT)
    assert recalled.episode.question == SURVIVOR_QUESTION
    assert [note.text for note in await memory.store.list_wisdom(KEPT)] == [
        "Brontosaurus telescope tips."
    ]


async def test_forget_user_leaves_nothing_to_list_export_or_recall(memory: Memory) -> None:
    await _remember_everything(memory)
    await memory.store.forget_user(FORGOTTEN)
    store = memory.store
    export = await store.export_user(FORGOTTEN)
    assert (export.episodes, export.wisdom, export.ledger_entries, export.votes) == ([], [], 0, [])
    assert await memory.recall("zanzibarite marmalade", user=FORGOTTEN, scope=CHANNEL) == []
    assert await store.list_episodes(FORGOTTEN, statuses=frozenset(EpisodeStatus)) == []
    # their claim outlives the erasure (as a keyed hash), so a retry is not answered again
    assert not await store.claim("Ev0QUILLFEATHER", at=T0 + timedelta(days=1))
    later = T0 + timedelta(days=1)
    assert await store.take_questions(now=later, lease=timedelta(minutes=1), limit=9) == []
    second = await store.forget_user(FORGOTTEN)
    assert second.total == 0


@pytest.mark.parametrize("config", [MemoryConfig(anyone_may_vote=True)])
async def test_forgetting_a_voter_recomputes_the_status_their_vote_set(memory: Memory) -> None:
    episode = await memory.answered("How do I tune the crumhorn?", user=KEPT, scope=CHANNEL)
    ts = memory.sent[episode.id][0]
    outcome = await memory.react(CHANNEL, ts, FORGOTTEN, "-1", at=T0 + timedelta(hours=1))
    assert outcome.status is EpisodeStatus.FAILURE
    await memory.store.forget_user(FORGOTTEN)
    [kept] = await memory.store.list_episodes(KEPT)
    assert kept.status is EpisodeStatus.SUCCESS


async def test_forget_episode_erases_only_the_owners_episode(memory: Memory, db_path: Path) -> None:
    secret = await memory.answered(SECRET_QUESTION, SECRET_ANSWER, user=FORGOTTEN)
    kept = await memory.answered("Another vellichor question", "Fine.", user=FORGOTTEN)
    assert not await memory.store.forget_episode(KEPT, secret.id)
    assert await memory.store.forget_episode(FORGOTTEN, secret.id)
    assert not await memory.store.forget_episode(FORGOTTEN, secret.id)
    assert [e.id for e in await memory.store.list_episodes(FORGOTTEN)] == [kept.id]
    assert traces(disk_bytes(db_path), ["zanzibarite", "Ossifrage", "marmalade"]) == []
    assert await memory.react(DM, memory.sent[secret.id][0], FORGOTTEN, "+1") is not None
    assert not (await memory.react(DM, memory.sent[secret.id][0], FORGOTTEN, "-1")).applied


async def test_forget_wisdom_erases_only_the_owners_note(memory: Memory, db_path: Path) -> None:
    [note] = await memory.store.replace_wisdom(
        DM, FORGOTTEN, [SECRET_WISDOM], episode_count=3, at=T0
    )
    assert not await memory.store.forget_wisdom(KEPT, note.id)
    assert traces(disk_bytes(db_path), ["crumhorn"]) == ["crumhorn"]
    assert await memory.store.forget_wisdom(FORGOTTEN, note.id)
    assert await memory.store.wisdom(DM, FORGOTTEN) == []
    assert traces(disk_bytes(db_path), ["crumhorn"]) == []


async def test_nothing_that_started_before_forget_writes_about_the_person_after_it(
    memory: Memory,
) -> None:
    store = memory.store
    started = T0 + timedelta(hours=1)
    await store.forget_user(FORGOTTEN, at=T0 + timedelta(hours=2))

    in_flight = exchange(
        SECRET_QUESTION,
        "An answer written while /forget ran.",
        ts="1.000100",
        user=FORGOTTEN,
        at=started,
    )
    assert await store.record_exchange(in_flight) is None
    assert (
        await store.replace_wisdom(DM, FORGOTTEN, [SECRET_WISDOM], episode_count=1, at=started)
        == []
    )
    export = await store.export_user(FORGOTTEN)
    assert (export.episodes, export.wisdom, export.ledger_entries) == ([], [], 0)
    # what begins after the erasure is remembered as usual
    later = in_flight.model_copy(update={"created_at": T0 + timedelta(hours=3)})
    assert await store.record_exchange(later) is not None
    assert await store.forgotten_at([FORGOTTEN, KEPT]) == {FORGOTTEN: T0 + timedelta(hours=2)}


async def test_a_lesson_drawn_before_forget_never_lands_on_a_newer_episode(
    memory: Memory,
) -> None:
    store = memory.store
    failure = await memory.answered(SECRET_QUESTION, SECRET_ANSWER, user=FORGOTTEN, vote=Vote.DOWN)
    await store.forget_user(FORGOTTEN, at=T0 + timedelta(hours=2))
    newer = await memory.answered(
        "Why is the crumhorn flat?",
        "Humidity.",
        user=KEPT,
        vote=Vote.DOWN,
        at=T0 + timedelta(hours=3),
    )

    assert newer.id != failure.id, "an erased episode's id is never handed out again"
    assert not await store.set_lesson(failure.id, SECRET_LESSON)
    [kept] = await store.list_episodes(KEPT)
    assert kept.lesson is None


@pytest.mark.parametrize("config", [MemoryConfig(anyone_may_vote=True)])
async def test_a_vote_cast_before_the_voter_was_forgotten_is_refused_after(
    memory: Memory,
) -> None:
    episode = await memory.answered("How do I tune the crumhorn?", user=KEPT, scope=CHANNEL)
    await memory.store.forget_user(FORGOTTEN, at=T0 + timedelta(hours=2))

    outcome = await memory.react(
        CHANNEL, memory.sent[episode.id][0], FORGOTTEN, "-1", at=T0 + timedelta(hours=1)
    )

    assert not outcome.applied
    [kept] = await memory.store.list_episodes(KEPT)
    assert kept.status is EpisodeStatus.SUCCESS


async def test_the_bots_replies_to_a_forgotten_person_stay_known_as_erased_without_text(
    memory: Memory,
) -> None:
    store = memory.store
    mine = await memory.ask(SECRET_QUESTION, user=FORGOTTEN, parts=2)
    theirs = await memory.ask(SURVIVOR_QUESTION, user=KEPT)
    await store.forget_user(FORGOTTEN)
    await store.erase_replies(DM.channel_id, ["7777.000100"])  # one posted after /forget

    sent = [*memory.sent[mine.id], *memory.sent[theirs.id], "7777.000100"]
    erased = await store.erased_replies(DM.channel_id, sent)

    assert erased == {*memory.sent[mine.id], "7777.000100"}
    assert await store.erased_replies("C0OTHER", sent) == set()


async def test_every_reply_to_a_forgotten_person_is_known_as_erased_however_many(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replies are recorded a batch per statement: here more than a batch, in two
    channels."""
    monkeypatch.setattr(fence, "_BATCH", 2)
    in_dm = await memory.ask(SECRET_QUESTION, user=FORGOTTEN, parts=3)
    in_channel = await memory.ask(SURVIVOR_QUESTION, user=FORGOTTEN, scope=CHANNEL, parts=2)
    await memory.store.forget_user(FORGOTTEN)

    for scope, episode in ((DM, in_dm), (CHANNEL, in_channel)):
        sent = memory.sent[episode.id]
        assert await memory.store.erased_replies(scope.channel_id, sent) == set(sent)
