"""``python -m bot consolidate | memory | export | stats`` against a real SQLite file.

``main`` runs its own event loop, so each command runs in a worker thread while the fake
model server (for ``consolidate``) runs in the test's loop.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.admin import describe_stats
from bot.simulator import FakeLLMServer, ScriptedReply
from memory import (
    EpisodeStatus,
    MemoryStore,
    RecallRequest,
    Scope,
    StoreStats,
    UserExport,
    Vote,
)
from tests.episodes import CHANNEL, DM
from tests.memory.memory_helpers import Memory

ALICE = "U0ALICE"
BOB = "U0BOB"


@pytest.fixture
def db_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The database file the commands use (and the suite's ``store`` opens), configured
    through the environment only."""
    path = tmp_path / "bot.db"
    monkeypatch.chdir(tmp_path)  # no developer .env
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")
    monkeypatch.setenv("BOT_DB_PATH", str(path))
    monkeypatch.setenv("LOG_LEVEL", "WARNING")
    return path


@pytest.fixture
def memory(store: MemoryStore) -> Memory:
    return Memory(store)


async def rated(
    memory: Memory, user: str, question: str, *, vote: Vote | None = Vote.UP, scope: Scope = DM
) -> int:
    """An answered question (two minutes ago), voted on by its asker unless ``vote`` is None."""
    at, answer = datetime.now(UTC) - timedelta(minutes=2), f"Answer to {question}"
    if vote is None:
        episode = await memory.ask(question, answer, user=user, scope=scope, at=at)
    else:
        episode = await memory.answered(question, answer, user=user, scope=scope, at=at, vote=vote)
    return episode.id


async def run_cli(*argv: str) -> int:
    return await asyncio.to_thread(main, list(argv))


async def test_memory_shows_one_persons_episodes_of_every_status_and_notes(
    memory: Memory, store: MemoryStore, capsys: pytest.CaptureFixture[str]
) -> None:
    await rated(memory, ALICE, "How do I restart search?")
    failed = await rated(memory, ALICE, "How do I deploy billing?", vote=Vote.DOWN)
    await store.give_reason(failed, ALICE, "It deployed to prod.", at=datetime.now(UTC))
    await store.set_lesson(failed, "Use the staging target.", reason="It deployed to prod.")
    await rated(memory, ALICE, "Never rated question", vote=None)
    await rated(memory, BOB, "Bob's private question", scope=CHANNEL)
    await store.replace_wisdom(
        DM, ALICE, ["Likes one-line commands."], episode_count=2, at=datetime.now(UTC)
    )

    assert await run_cli("memory", ALICE) == 0

    out = capsys.readouterr().out
    assert out.startswith(f"{ALICE}: 3 episode(s), 1 note(s)")
    for status in ("success", "failure", "pending"):
        assert f"[{status}]" in out
    assert "lesson: Use the staging target." in out
    assert "reason: It deployed to prod." in out
    assert "Likes one-line commands." in out
    assert "Bob's private question" not in out


async def test_export_is_json_of_everything_about_the_person_and_nobody_else(
    memory: Memory, store: MemoryStore, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = await rated(memory, ALICE, "How do I restart search?")
    await rated(memory, BOB, "Bob's question", scope=CHANNEL)

    assert await run_cli("export", ALICE) == 0

    out = capsys.readouterr().out
    export = UserExport.model_validate_json(out)
    assert export.user_id == ALICE
    assert [episode.id for episode in export.episodes] == [mine]
    assert [(vote.episode_id, vote.vote) for vote in export.votes] == [(mine, Vote.UP)]
    raw = json.loads(out)
    assert raw["episodes"][0]["id"] == raw["votes"][0]["episode_id"] == mine, "one type: int"
    assert export.ledger_entries == 1


async def test_stats_counts_episodes_votes_recalls_and_tool_errors(
    memory: Memory, store: MemoryStore, capsys: pytest.CaptureFixture[str]
) -> None:
    await rated(memory, ALICE, "How do I restart search?")
    await rated(memory, ALICE, "How do I deploy billing?", vote=Vote.DOWN)
    await rated(memory, BOB, "Unrated", vote=None, scope=CHANNEL)
    await store.recall(
        RecallRequest(scope=DM, requester_id=ALICE, text="restart search", now=datetime.now(UTC))
    )
    await store.count("tool_error:partial_data:lookup_user", by=2)
    await store.count("tool_error:schema_mismatch:read_thread")

    assert await run_cli("stats") == 0

    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "episodes: failure 1, pending 1, success 1",
        "votes: 2",
        "recalls: 1",
        "tool errors: 3",
        "  partial_data: 2 (lookup_user 2)",
        "  schema_mismatch: 1 (read_thread 1)",
    ]


def test_stats_of_an_empty_store_have_no_tool_error_lines() -> None:
    stats = StoreStats(
        episodes_by_status={"pending": 0, "success": 0, "failure": 0},
        votes=0,
        recalls=0,
        tool_errors={},
    )

    assert describe_stats(stats).splitlines()[-1] == "tool errors: 0"


async def test_consolidate_writes_notes_with_the_model_once(
    memory: Memory,
    store: MemoryStore,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await rated(memory, ALICE, "How do I restart search?")
    await rated(memory, ALICE, "How do I deploy billing?", vote=Vote.DOWN)
    await rated(memory, BOB, "Unrated", vote=None, scope=CHANNEL)
    async with FakeLLMServer() as llm:
        llm.script(ScriptedReply.answer('["Prefers one-line commands.", "Staging first."]'))
        monkeypatch.setenv("LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("LLM_MODEL", llm.model)

        assert await run_cli("consolidate") == 0

        [request] = llm.requests
    assert "How do I deploy billing?" in json.dumps(request["messages"])
    assert "Unrated" not in json.dumps(request["messages"])
    assert capsys.readouterr().out.startswith("consolidated 1 conversation(s) into 2 note(s)")
    notes = await store.wisdom(DM, ALICE)
    assert [note.text for note in notes] == ["Prefers one-line commands.", "Staging first."]
    assert await store.wisdom(CHANNEL, BOB) == []
    assert {episode.status for episode in await store.list_episodes(ALICE)} == {
        EpisodeStatus.SUCCESS,
        EpisodeStatus.FAILURE,
    }


async def test_forget_workspace_erases_that_workspace_only(
    memory: Memory, store: MemoryStore, db_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = DM.model_copy(update={"team_id": "T2"})
    await rated(memory, ALICE, "where is the okapi runbook?")
    await rated(memory, ALICE, "where is the narwhal runbook?", scope=other)

    assert await run_cli("forget-workspace", "T1") == 0
    printed = capsys.readouterr().out
    assert "episodes: 1" in printed and "erased" in printed
    [left] = await store.list_episodes(ALICE)
    assert left.scope == other
    assert b"okapi" not in b"".join(path.read_bytes() for path in db_file.parent.glob("bot.db*"))
    assert await run_cli("forget-workspace", "T1") == 1, "nothing left to erase"


def test_forget_workspace_refuses_what_is_not_a_team_id(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["forget-workspace", "U0ALICE"])
    assert exit_.value.code == 2
    assert "not a Slack team ID" in capsys.readouterr().err


async def test_export_of_one_workspace_leaves_out_the_others(
    memory: Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    other = DM.model_copy(update={"team_id": "T2"})
    await rated(memory, ALICE, "where is the okapi runbook?")
    await rated(memory, ALICE, "where is the narwhal runbook?", scope=other)

    assert await run_cli("export", ALICE, "--workspace", "T2") == 0
    export = UserExport.model_validate_json(capsys.readouterr().out)
    assert [episode.question for episode in export.episodes] == ["where is the narwhal runbook?"]
    assert len(export.votes) == 1 and export.ledger_entries == 1
    assert await run_cli("memory", ALICE) == 0
    both = capsys.readouterr().out
    assert "okapi" in both and "narwhal" in both
