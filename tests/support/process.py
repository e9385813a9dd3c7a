"""``python -m bot`` as a child process, for tests that signal or kill it: its environment
wired to the fakes, starting it, waiting for it, and sending it what Slack would."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from bot.server import EVENTS_PATH, HEALTH_PATH
from bot.simulator.model import FakeLLMServer
from bot.simulator.slack_people import SIGNING_SECRET, sign
from bot.simulator.slack_web_api import FakeSlackWebAPI

__all__ = [
    "PROJECT_ROOT",
    "bot_env",
    "fakes_env",
    "free_port",
    "local_url",
    "post_event",
    "run_bot",
    "run_bot_to_end",
    "wait_until_healthy",
]

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port nothing listens on right now, on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bot_env(**values: str) -> dict[str, str]:
    """A clean environment: nothing from the developer's shell or .env leaks in."""
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(PROJECT_ROOT), **values}


def fakes_env(
    fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, *, db: Path | None = None, **values: str
) -> dict[str, str]:
    """:func:`bot_env` for a bot that talks to the fakes, on a free ``PORT``, keeping its
    SQLite database in ``db`` (else give ``BOT_DB_URL``); ``values`` add or override."""
    wired = {
        "SLACK_BOT_TOKEN": fake_slack.token,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": fake_slack.base_url,
        "LLM_BASE_URL": fake_llm.base_url,
        "LLM_MODEL": fake_llm.model,
        "PORT": str(free_port()),
    }
    if db is not None:
        wired["BOT_DB_PATH"] = str(db)
    return bot_env(**(wired | values))


def local_url(env: dict[str, str]) -> str:
    """Where the bot started with ``env`` listens."""
    return f"http://127.0.0.1:{env['PORT']}"


async def post_event(url: str, body: str) -> httpx.Response:
    """``body`` (an Events API payload) signed and posted to the bot at ``url``, as Slack does."""
    async with httpx.AsyncClient() as http:
        return await http.post(
            f"{url}{EVENTS_PATH}",
            content=body,
            headers={"Content-Type": "application/json", **sign(body)},
        )


async def run_bot(
    *args: str, env: dict[str, str], cwd: Path, log_file: Path | None = None
) -> asyncio.subprocess.Process:
    """``python -m bot ARGS`` with its output piped, or its log (stderr) appended to
    ``log_file``: a chatty bot nobody reads would fill the pipe and stall."""
    if log_file is None:
        stderr: int = asyncio.subprocess.PIPE
    else:
        stderr = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            *args,
            env=env,
            cwd=cwd,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
        )
    finally:
        if log_file is not None:
            os.close(stderr)


def run_bot_to_end(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot ARGS`` with only ``env`` (see :func:`bot_env`), run until it exits
    (within a minute); its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env=bot_env(**env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def wait_until_healthy(
    url: str, process: asyncio.subprocess.Process, *, within: float = 30.0, log: Path | None = None
) -> None:
    """Wait until ``GET /healthz`` answers 200; fail if the process exits first (showing its
    ``log``, given one)."""
    async with httpx.AsyncClient() as http, asyncio.timeout(within):
        while True:
            if process.returncode is not None:
                output = "" if log is None else await asyncio.to_thread(log.read_text)
                raise AssertionError(f"the bot exited during start-up\n{output}")
            try:
                if (await http.get(f"{url}{HEALTH_PATH}")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)
