"""The README's local playground: the real bot in HTTP mode against the shipped fakes."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.simulator import FakeLLMServer
from bot.simulator.slack_people import ALICE
from memory import MemoryConfig, open_store
from tests.support.postgres_scratch import scratch_schema
from tests.support.process import bot_env

CompletedProcess = subprocess.CompletedProcess[str]

SCRIPT = """\
dm how do I rotate the staging password?
mention what does the deploy script do?
thread and on production?
+1
as bob
+1
as alice
forget
quit
"""


@pytest.mark.parametrize("entry", [["bot.playground"], ["bot", "playground"]])
def test_a_new_user_can_dm_and_mention_the_bot_and_teach_it(
    tmp_path: Path, entry: list[str]
) -> None:
    finished = subprocess.run(
        [sys.executable, "-m", *entry, "--port", "0", "--db", str(tmp_path / "p.db")],
        input=SCRIPT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=tmp_path,
    )
    out = finished.stdout
    assert "HTTP mode" in out
    assert out.count("bot (") == 3, out
    assert "in the DM, in a thread):\nAnswer: how do I rotate" in out
    assert "in #general, in a thread):\nAnswer: what does the deploy script do?" in out
    assert "in #general, in a thread):\nAnswer: and on production?" in out
    assert "Your validated memories: 1 👍, 0 👎." in out
    assert "Your validated memories: 0 👍, 0 👎." in out, "bob's reaction must not count"
    assert "erased everything" in out
    assert "Traceback" not in finished.stderr


def play(script: str, db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.playground", "--port", "0", "--db", str(db)],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=db.parent,
    )


LEARNING = """\
dm how do I rotate the staging password?
+1
dm rotate the staging password again
memory
quit
"""


def test_it_works_on_every_run_against_the_same_database(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    first = play(LEARNING, db)
    second = play(LEARNING, db)

    for run in (first, second):
        assert run.stdout.count("bot (") == 2, run.stdout + run.stderr
        assert "Traceback" not in run.stderr
    assert "Answer: rotate the staging password again" in second.stdout
    assert "Your validated memories: 2 👍, 0 👎." in second.stdout


def test_after_each_answer_it_shows_what_memory_put_into_the_prompt(tmp_path: Path) -> None:
    out = play(LEARNING, tmp_path / "p.db").stdout

    first, second = out.split("bot (")[1:]
    assert "memory put nothing into the prompt" in first
    assert "memory put into the prompt:" in second
    assert "| - They asked “how do I rotate the staging password?” and this answer worked" in second
    assert "What I remember about you here" in second


async def test_with_a_real_model_it_shows_the_prompt_the_model_was_sent(tmp_path: Path) -> None:
    """``--real-llm`` talks to the model in the environment (here a model server the test
    runs) through a recording proxy, and shows what memory put into its prompt."""
    async with FakeLLMServer(model="real-model") as real:
        real_url = real.base_url
        env = bot_env(LLM_BASE_URL=real.base_url, LLM_MODEL=real.model, LLM_API_KEY="sk-real-key")
        process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "bot.playground", "--real-llm", "--port", "0"),
            *("--db", str(tmp_path / "p.db")),
            env=env,
            cwd=tmp_path,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        stdout, stderr = await asyncio.wait_for(process.communicate(LEARNING.encode()), 60)
    out = stdout.decode()

    assert process.returncode == 0, out + stderr.decode()
    assert f"model real-model at {real_url} (through http://127.0.0.1:" in out
    first, second = out.split("bot (")[1:]
    assert "Answer: how do I rotate the staging password?" in first
    assert "memory put nothing into the prompt" in first
    assert "| - They asked “how do I rotate the staging password?” and this answer worked" in second
    assert len(real.requests) >= 2, "every answer came from the model in the environment"
    assert "Traceback" not in stderr.decode()


def test_memory_shows_the_current_conversation(tmp_path: Path) -> None:
    out = play(
        "dm deploy staging?\n+1\nmention deploy staging?\nmemory\nquit\n", tmp_path / "p.db"
    ).stdout

    after_mention = out.split("#general, in a thread")[1]
    assert "I don't remember anything about you in this conversation yet" in after_mention


def test_feedback_buttons_and_the_home_tab_have_verbs(tmp_path: Path) -> None:
    out = play("dm what is our on-call rota?\nclick -1\nhome\nquit\n", tmp_path / "p.db").stdout

    assert "Your validated memories: 0 👍, 1 👎." in out
    home = out.split("Home tab:")[1]
    assert "what is our on-call rota?" in home


def test_ctrl_c_exits_at_once_without_a_traceback(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.playground", "--port", "0", "--db", str(tmp_path / "p.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert process.stdout is not None
        assert "HTTP mode" in process.stdout.readline()

        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=5)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    assert process.returncode == 130
    assert "Traceback" not in stderr


def play_to_end(*args: str, cwd: Path, script: str = "quit\n", **env: str) -> CompletedProcess:
    """``python -m bot.playground ARGS`` with only ``env`` (nothing from this shell)."""
    return subprocess.run(
        [sys.executable, "-m", "bot.playground", *args],
        input=script,
        env=bot_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=cwd,
    )


def one_error_line(finished: CompletedProcess) -> str:
    assert finished.returncode == 2, finished.stdout + finished.stderr
    assert "Traceback" not in finished.stderr
    [line] = finished.stderr.strip().splitlines()
    assert line.startswith("error: ")
    return line


async def test_it_never_writes_to_the_database_of_bot_db_url(tmp_path: Path) -> None:
    async with scratch_schema() as production:
        finished = await asyncio.to_thread(
            play_to_end,
            *("--port", "0", "--db", str(tmp_path / "p.db")),
            cwd=tmp_path,
            script=LEARNING,
            BOT_DB_URL=production,
        )
        store = await open_store(production, MemoryConfig())
        try:
            untouched = await store.export_user(ALICE)
        finally:
            await store.close()

    assert finished.returncode == 0, finished.stderr
    assert "BOT_DB_URL and BOT_DB_PATH are not used" in finished.stdout
    assert "Your validated memories: 1 👍, 0 👎." in finished.stdout, "it kept them elsewhere"
    assert (tmp_path / "p.db").is_file()
    assert (untouched.episodes, untouched.votes, untouched.ledger_entries) == ([], [], 0)


def test_a_busy_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        finished = play_to_end("--port", str(port), "--db", str(tmp_path / "p.db"), cwd=tmp_path)

    line = one_error_line(finished)
    assert f"port {port} is already in use" in line
    assert "--port" in line


def test_a_folder_given_as_its_database_is_one_line(tmp_path: Path) -> None:
    finished = play_to_end("--port", "0", "--db", str(tmp_path), cwd=tmp_path)

    assert "is a folder, not a database file" in one_error_line(finished)


async def test_with_no_model_server_real_llm_names_the_refused_connection(tmp_path: Path) -> None:
    async with FakeLLMServer() as gone:
        url = gone.base_url

    finished = await asyncio.to_thread(
        play_to_end,
        *("--real-llm", "--port", "0", "--db", str(tmp_path / "p.db")),
        cwd=tmp_path,
        script=LEARNING,
        LLM_BASE_URL=url,
    )

    line = one_error_line(finished)
    assert "refused the connection" in line
    assert "502" not in line
    assert "LLM_BASE_URL" in line
