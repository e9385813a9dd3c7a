"""The benchmarks' cached stores are keyed by the modules that decide what a store holds."""

from __future__ import annotations

import shutil
from pathlib import Path

import memory
from benchmarks.stores import WRITE_PATH, _write_path_digest


def test_every_pattern_of_the_write_path_names_a_file_so_the_cache_key_can_be_made() -> None:
    package = Path(memory.__file__).parent
    unmatched = [name for name in WRITE_PATH if not any(p.is_file() for p in package.glob(name))]
    assert unmatched == []
    assert len(_write_path_digest()) == 12


def test_the_cache_key_follows_the_migrations_sql(tmp_path: Path) -> None:
    """An edit to a released migration's file must not reuse a store built before it."""
    package = tmp_path / "memory"
    shutil.copytree(Path(memory.__file__).parent, package)
    before = _write_path_digest(package)
    migration = sorted((package / "sqlite" / "migrations").glob("*.sql"))[0]
    migration.write_text(migration.read_text() + "\n")
    assert _write_path_digest(package) != before
