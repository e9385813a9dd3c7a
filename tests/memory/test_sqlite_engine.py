"""The SQLite library the store runs on, and what the lean index relies on from it."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import pytest
import sqlite_utils
from memory_helpers import T0, Memory

from memory import MemoryConfig, MemoryStore, Vote, open_store
from memory.models import StoreUnavailable
from memory.sqlite.session import AWAITING_LESSONS_SQL, AWAITING_REFLECTION_SQL
from memory.sqlite.store import MIN_SQLITE, engine


def test_the_store_runs_on_a_current_sqlite() -> None:
    assert engine.sqlite_version_info >= MIN_SQLITE
    if sys.platform == "linux" and platform.machine() == "x86_64":
        assert engine.__name__ == "pysqlite3", "pysqlite3-binary is installed"


async def test_an_old_sqlite_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "sqlite_version_info", (3, 40, 1))
    monkeypatch.setattr(engine, "sqlite_version", "3.40.1")
    with pytest.raises(StoreUnavailable) as raised:
        await open_store(str(tmp_path / "bot.db"), MemoryConfig())
    message = str(raised.value)
    assert "3.40.1" in message and "3.43" in message and "\n" not in message
    assert not (tmp_path / "bot.db").exists(), "nothing is created with an old SQLite"


async def test_the_index_deletes_in_place_and_the_reflection_queue_is_indexed(
    store: MemoryStore, db_path: Path
) -> None:
    memory = Memory(store)
    await memory.answered("How do I rotate the vault token?", vote=Vote.DOWN, at=T0)
    db = sqlite_utils.Database(db_path)
    try:
        [secure] = db.query("SELECT v FROM episodes_fts_config WHERE k = 'secure-delete'")
        assert secure["v"] == 1
        plans = [
            " ".join(row["detail"] for row in db.query(f"EXPLAIN QUERY PLAN {sql}", [20]))
            for sql in (AWAITING_REFLECTION_SQL, AWAITING_LESSONS_SQL)
        ]
    finally:
        db.close()
    for plan in plans:
        assert "SCAN episodes USING INDEX episodes_awaiting_lesson" in plan, plan
        assert "episodes_status" not in plan, "no read of every validated episode"
    with_scores, lessons_only = plans
    assert "SCAN score_queue" in with_scores and "SEARCH episodes USING INTEGER" in with_scores
    assert "TEMP B-TREE" not in lessons_only, "read in order from the index, not sorted"
    assert [e.id for e in await store.episodes_awaiting_reflection(limit=5)] == [1]
