"""``python -m bot`` admin commands as processes: Slack settings not needed, one line for
every problem with the database or the model, and the documented exit codes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

from bot.simulator import FakeLLMServer
from bot.simulator.slack_web_api import FakeSlackWebAPI
from memory import ConversationKind, MemoryConfig, NewExchange, Scope, open_store
from memory.postgres.store import connect_problem
from tests.support.postgres_scratch import admin_url, create_schema, drop_schema, schema_url
from tests.support.process import fakes_env, run_bot_to_end

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


def listing(folder: Path) -> list[Path]:
    return sorted(folder.iterdir())


EVERY_COMMAND = [
    ["forget", ALICE],
    ["memory", ALICE],
    ["export", ALICE],
    ["stats"],
    ["consolidate"],
]


@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_a_read_only_database_is_one_line_and_gets_no_wal_or_shm_files(
    db_file: Path, tmp_path: Path, command: list[str]
) -> None:
    before = listing(tmp_path)
    with read_only(db_file):
        finished = cli(*command, cwd=tmp_path, BOT_DB_PATH=str(db_file))

    assert finished.returncode == 2
    line = one_line(finished.stderr)
    assert "BOT_DB_PATH" in line
    assert "read-only" in line
    assert listing(tmp_path) == before, "no -wal or -shm file beside it"


@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_an_empty_file_is_refused_and_left_empty(tmp_path: Path, command: list[str]) -> None:
    empty = tmp_path / "bot.db"
    empty.touch()

    finished = cli(*command, cwd=tmp_path, BOT_DB_PATH=str(empty))

    assert finished.returncode == 2
    line = one_line(finished.stderr)
    assert "BOT_DB_PATH" in line
    assert "is empty (0 bytes), not a database" in line
    assert empty.stat().st_size == 0, "an empty file is never made into a database"
    assert list(tmp_path.iterdir()) == [empty]


def test_a_folder_is_reported_as_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()

    finished = cli("stats", cwd=tmp_path, BOT_DB_PATH=str(folder))

    assert finished.returncode == 2
    line = one_line(finished.stderr)
    assert "is a folder, not a database file" in line
    assert "does not exist" not in line
    assert list(folder.iterdir()) == []


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
    assert "the PostgreSQL server refused the connection: is it running" in line
    assert "s3cret" not in finished.stderr + finished.stdout


def with_url_part(**parts: str) -> str:
    """The test server's URL with its ``path`` (the database) or ``netloc`` replaced."""
    return urlunsplit(urlsplit(admin_url())._replace(**parts))


def test_a_database_the_server_does_not_have_is_named(tmp_path: Path) -> None:
    url = with_url_part(path="/no_such_database_here")

    finished = cli("stats", cwd=tmp_path, BOT_DB_URL=url)

    assert finished.returncode == 2
    line = one_line(finished.stderr)
    assert "the PostgreSQL server has no such database: create it" in line
    assert "no_such_database_here" not in line, "the server's own words are never repeated"


def test_a_role_the_server_does_not_have_is_named(tmp_path: Path) -> None:
    host = urlsplit(admin_url()).netloc.rpartition("@")[2]
    url = with_url_part(netloc=f"no_such_role_here:s3cret@{host}")

    finished = cli("stats", cwd=tmp_path, BOT_DB_URL=url)

    assert finished.returncode == 2
    line = one_line(finished.stderr)
    assert "the PostgreSQL server has no such role: create it" in line
    assert "s3cret" not in finished.stderr


@pytest.fixture
def role_without_privileges() -> Iterator[str]:
    """A URL whose role may log in and see a new schema, but not create tables in it."""
    schema = create_schema()
    role = f"ops_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        conn.execute(
            sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(
                sql.Identifier(schema), sql.Identifier(role)
            )
        )
    host = urlsplit(admin_url()).netloc.rpartition("@")[2]
    try:
        yield with_url_part(
            netloc=f"{role}@{host}", query=f"options={quote(f'-csearch_path={schema}')}"
        )
    finally:
        drop_schema(schema)
        with psycopg.connect(admin_url(), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def test_a_role_that_may_not_create_the_tables_is_named(
    tmp_path: Path, role_without_privileges: str
) -> None:
    finished = cli("stats", cwd=tmp_path, BOT_DB_URL=role_without_privileges)

    assert finished.returncode == 2
    line = one_line(finished.stderr)
    assert "the PostgreSQL role may not create or use the bot's tables" in line


@pytest.mark.parametrize(
    ("server_said", "named"),
    [
        ('FATAL:  password authentication failed for user "bot"', "refused the role's password"),
        ("fe_sendauth: no password supplied", "set PGPASSWORD"),
        ('FATAL:  no pg_hba.conf entry for host "10.0.0.2", user "bot"', "pg_hba.conf"),
    ],
)
def test_authentication_failures_are_told_apart(server_said: str, named: str) -> None:
    """What libpq says when the server refuses a password, which the trust-authenticated
    test server never does (so this one case is a unit test of the words matched)."""
    error = psycopg.OperationalError(f'connection to server at "db" failed: {server_said}')

    assert named in connect_problem(error)
    assert "10.0.0.2" not in connect_problem(error), "the server's own words are not repeated"


def the_error(stderr: str) -> list[str]:
    """The error lines of a bot that stopped at start, after its start-up log lines."""
    assert "Traceback" not in stderr
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def test_serving_on_a_busy_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        finished = cli(
            cwd=tmp_path,
            SLACK_BOT_TOKEN="xoxb-test",
            SLACK_SIGNING_SECRET="secret",
            LLM_BASE_URL="http://127.0.0.1:1/v1",
            PORT=str(port),
        )

    assert finished.returncode == 2
    [error] = the_error(finished.stderr)
    assert error.startswith(f"error: PORT: port {port} is already in use")


async def test_serving_on_a_read_only_database_is_one_line_and_leaves_no_files(
    db_file: Path, tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    before = listing(tmp_path)
    with read_only(db_file):
        finished = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "bot"],
            env=fakes_env(fake_slack, fake_llm, db=db_file),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert finished.returncode == 2
    errors = [line for line in finished.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: BOT_DB_PATH cannot be used: {db_file} is read-only for this user: "
        "run as the user that owns it (the bot's), or work on a copy"
    ]
    assert "Traceback" not in finished.stderr
    assert listing(tmp_path) == before, "no -wal or -shm file beside it"
