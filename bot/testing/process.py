"""``python -m bot`` as a child process, for tests that signal or kill it."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

import httpx

from bot.server import HEALTH_PATH

__all__ = ["PROJECT_ROOT", "bot_env", "free_port", "run_bot", "wait_until_healthy"]

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port nothing listens on right now, on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bot_env(**values: str) -> dict[str, str]:
    """A clean environment: nothing from the developer's shell or .env leaks in."""
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(PROJECT_ROOT), **values}


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


async def wait_until_healthy(
    url: str, process: asyncio.subprocess.Process, *, within: float = 30.0
) -> None:
    """Wait until ``GET /healthz`` answers 200; fail if the process exits first."""
    async with httpx.AsyncClient() as http, asyncio.timeout(within):
        while True:
            assert process.returncode is None, "the bot exited during start-up"
            try:
                if (await http.get(f"{url}{HEALTH_PATH}")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)
