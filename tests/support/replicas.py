"""Bot processes sharing one PostgreSQL database, as replicas behind a load balancer."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.process import local_url, wait_until_healthy

__all__ = ["REPLICAS", "Replica", "running_replicas"]

REPLICAS = 3


@dataclass
class Replica:
    process: asyncio.subprocess.Process
    url: str
    log: Path


async def _start(number: int, tmp_path: Path, env: dict[str, str]) -> Replica:
    log = tmp_path / f"replica{number}.log"
    directory = tmp_path / f"replica{number}"
    directory.mkdir()
    with log.open("wb") as output:
        process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "bot"),
            env=env,
            cwd=directory,
            stdout=output,
            stderr=output,
        )
    return Replica(process, local_url(env), log)


@asynccontextmanager
async def running_replicas(
    count: int, tmp_path: Path, env: Callable[[], dict[str, str]]
) -> AsyncIterator[list[Replica]]:
    """``count`` bot processes (``python -m bot``), each started with a fresh ``env()``
    (its own free port), healthy; terminated on exit."""
    started = [await _start(n, tmp_path, env()) for n in range(count)]
    try:
        await asyncio.gather(
            *(
                wait_until_healthy(replica.url, replica.process, within=60, log=replica.log)
                for replica in started
            )
        )
        yield started
    finally:
        for replica in started:
            if replica.process.returncode is None:
                replica.process.terminate()
        for replica in started:
            await replica.process.wait()
