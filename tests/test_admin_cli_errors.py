"""``python -m bot`` admin commands as processes: Slack settings not needed, one line for
every problem with the database or the model, and the documented exit codes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.testing import FakeLLMServer
from bot.testing.process import run_bot_to_end
from memory import ConversationKind, MemoryConfig, NewExchange, Scope, open_store
from memory.postgres.scratch import create_schema, drop_schema, schema_url

ALICE = "U0ALICE"
cli = run_bot_to_end


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


async def store_with_one_answer(url: str) -> None:
    """Alice's one (unrated) answer, in the store at ``url`` (a path or a database URL)."""
    store = await open_store(url, MemoryConfig())
    await store.record_exchange(
        NewExchange(
            scope=Scope(team_id="T1", channel_id="D0ALICE", kind=ConversationKind.DM),
            requester_id=ALICE,
            thread_ts=None,
            question="How do I restart search?",
            answer="Run the restart script.",
            message_ts=["1700000001.000001"],
            created_at=datetime.now(UTC),
        )
    )
    await store.close()


@pytest.fixture
async def db_file(tmp_path: Path) -> Path:
    path = tmp_path / "bot.db"
    await store_with_one_answer(str(path))
    return path


def test_admin_commands_need_no_slack_setting(db_file: Path, tmp_path: Path) -> None:
    finished = cli("stats", cwd=tmp_path, BOT_DB_PATH=str(db_file))

    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.startswith("episodes: failure 0, pending 1, success 0")

    finished = cli("forget", ALICE, cwd=tmp_path, BOT_DB_PATH=str(db_file))

    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.splitlines()[-1] == f"erased 2 row(s) about {ALICE}"


@pytest.mark.parametrize("command", [["forget", ALICE], ["memory", ALICE], ["stats"]])
def test_a_database_that_does_not_exist_is_refused_and_not_created(
    tmp_path: Path, command: list[str]
) -> None:
    typo = tmp_path / "bto.db"

    finished = cli(*command, cwd=tmp_path, BOT_DB_PATH=str(typo))

    assert finished.returncode == 2
    line = one_line(finished.stderr)
    assert "BOT_DB_PATH" in line
    assert "does not exist" in line
    assert list(tmp_path.iterdir()) == [], "nothing may be created"


def test_a_file_that_is_not_a_database_is_one_line(tmp_path: Path) -> None:
    corrupt = tmp_path / "bot.db"
    corrupt.write_bytes(b"this is not SQLite " * 500)

    finished = cli("memory", ALICE, cwd=tmp_path, BOT_DB_PATH=str(corrupt))

    assert finished.returncode == 2
    line = one_line(finished.stderr)
    assert "BOT_DB_PATH" in line
    assert "not a SQLite database" in line


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` read-only even for root (who ignores file modes): immutable via chattr."""
    path.chmod(0o444)
    immutable = os.geteuid() == 0
    if immutable:
        chattr = shutil.which("chattr")
        assert chattr is not None, "root needs chattr to make a file read-only"
        subprocess.run([chattr, "+i", str(path)], check=True)
    try:
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o644)


def test_forget_on_a_read_only_database_is_one_line(db_file: Path, tmp_path: Path) -> None:
    with read_only(db_file):
        finished = cli("forget", ALICE, cwd=tmp_path, BOT_DB_PATH=str(db_file))

    assert finished.returncode == 2
    line = one_line(finished.stderr)
    assert "BOT_DB_PATH" in line
    assert "read-only" in line


def test_forgetting_an_id_that_matches_nothing_says_so_and_fails(
    db_file: Path, tmp_path: Path
) -> None:
    finished = cli("forget", "U0TYPO", cwd=tmp_path, BOT_DB_PATH=str(db_file))

    assert finished.returncode == 1
    line = one_line(finished.stderr)
    assert "nothing is stored about U0TYPO" in line
    assert finished.stdout == ""


async def test_consolidate_fails_when_the_model_is_down(db_file: Path, tmp_path: Path) -> None:
    async with FakeLLMServer() as llm:
        llm.down = True
        finished = await _cli_async(
            "consolidate",
            cwd=tmp_path,
            BOT_DB_PATH=str(db_file),
            LLM_BASE_URL=llm.base_url,
            LLM_MODEL=llm.model,
            LLM_RETRY_BUDGET_SECONDS="0",
        )

    assert finished.returncode == 1
    line = one_line(finished.stderr)
    assert "HTTP 503" in line


async def test_consolidate_fails_when_the_model_is_unreachable(
    db_file: Path, tmp_path: Path
) -> None:
    async with FakeLLMServer() as llm:
        gone = llm.base_url
    finished = await _cli_async(
        "consolidate", cwd=tmp_path, BOT_DB_PATH=str(db_file), LLM_BASE_URL=gone
    )

    assert finished.returncode == 1
    assert "unreachable" in one_line(finished.stderr)


async def _cli_async(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """:func:`cli` in a thread, while a fake server runs in this test's loop."""
    return await asyncio.to_thread(cli, *args, cwd=cwd, **env)


def test_help_documents_the_exit_codes(tmp_path: Path) -> None:
    for args in (["--help"], ["forget", "--help"]):
        finished = cli(*args, cwd=tmp_path)
        assert finished.returncode == 0
        assert "exit codes:" in finished.stdout
        for code in ("0 ", "1 ", "2 "):
            assert f"\n  {code}" in finished.stdout


def test_admin_commands_use_the_postgresql_database_of_bot_db_url(tmp_path: Path) -> None:
    async def seeded() -> str:
        schema = await asyncio.to_thread(create_schema)
        await store_with_one_answer(schema_url(schema))
        return schema

    schema = asyncio.run(seeded())
    try:
        url = schema_url(schema)
        stats = cli("stats", cwd=tmp_path, BOT_DB_URL=url)
        assert stats.returncode == 0, stats.stderr
        assert "pending" in stats.stdout and "1" in stats.stdout
        forgot = cli("forget", ALICE, cwd=tmp_path, BOT_DB_URL=url)
        assert forgot.returncode == 0, forgot.stderr
        again = cli("forget", ALICE, cwd=tmp_path, BOT_DB_URL=url)
        assert again.returncode == 1, "nothing is left to erase"
        assert not (tmp_path / "bot.db").exists(), "no SQLite file is made beside it"
    finally:
        drop_schema(schema)


def test_an_unreachable_bot_db_url_is_one_line_without_the_password(tmp_path: Path) -> None:
    finished = cli("stats", cwd=tmp_path, BOT_DB_URL="postgresql://bot:s3cret@127.0.0.1:1/bot")
    assert finished.returncode == 2
    line = one_line(finished.stderr)
    assert "BOT_DB_URL" in line
    assert "s3cret" not in finished.stderr + finished.stdout
