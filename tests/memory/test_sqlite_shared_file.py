"""Two connections to one SQLite file: the bot and the admin CLI (or a second process)
writing at once wait for each other; neither fails with "database is locked"."""

from __future__ import annotations

import asyncio
from pathlib import Path

from memory_helpers import T0, Memory

from memory import MemoryConfig, Vote, open_store

ROUNDS = 40


async def test_two_stores_on_one_file_write_at_once_without_failing(db_path: Path) -> None:
    first = await open_store(str(db_path), MemoryConfig())
    second = await open_store(str(db_path), MemoryConfig())
    try:
        one = Memory(first)
        other = Memory(second, _last_ts=500_000)  # the two never send the same message ts

        async def busy(memory: Memory, user: str) -> None:
            for round_ in range(ROUNDS):
                vote = Vote.UP if round_ % 2 else Vote.DOWN
                await memory.answered(f"Question {round_} of {user}", user=user, vote=vote)
                await memory.recall(f"Question {round_}", user=user)

        await asyncio.gather(busy(one, "U1"), busy(other, "U2"))

        for store, user in ((first, "U1"), (second, "U2")):
            recalled = await Memory(store).recall("Question 3", user=user, now=T0.replace(hour=12))
            assert recalled, "every vote was stored and filed"
        assert len(await first.list_episodes("U2")) == ROUNDS
        assert len(await second.list_episodes("U1")) == ROUNDS
    finally:
        await first.close()
        await second.close()
