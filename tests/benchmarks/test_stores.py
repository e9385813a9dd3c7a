"""The benchmarks' cached stores are keyed by the modules that decide what a store holds."""

from __future__ import annotations

from pathlib import Path

import memory
from benchmarks.stores import WRITE_PATH, _write_path_digest


def test_every_module_of_the_write_path_exists_so_the_cache_key_can_be_made() -> None:
    package = Path(memory.__file__).parent
    assert [name for name in WRITE_PATH if not (package / name).is_file()] == []
    assert len(_write_path_digest()) == 12
