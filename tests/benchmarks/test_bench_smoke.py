"""The benchmark runner works as documented: its quickest figure prints a well-formed line.

Speed is not asserted here (benchmarks measure it); only that the script runs and speaks
the ``name value unit (detail)`` format.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIGURE_LINE = re.compile(
    r"^(?P<name>[a-z0-9_]+) (?P<value>-?\d+(?:\.\d+)?(?:e[+-]?\d+)?) (?P<unit>\S+)"
    r"(?: \((?P<detail>.+)\))?$"
)


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m benchmarks.run ARGS``, keeping its log and caches under ``tmp_path``."""
    return subprocess.run(
        [sys.executable, "-m", "benchmarks.run", *args],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_quickest_figure_prints_one_well_formed_line_with_its_baseline(
    tmp_path: Path,
) -> None:
    finished = _run(tmp_path, "--quick", "--only", "wasted_llm_calls")

    assert finished.returncode == 0, finished.stderr
    lines = finished.stdout.splitlines()
    assert len(lines) == 1, finished.stdout
    match = FIGURE_LINE.match(lines[0])
    assert match is not None, lines[0]
    assert match["name"] == "wasted_llm_calls"
    assert match["unit"] == "calls"
    assert re.search(r"unguarded baseline \d+ calls", match["detail"])
    assert re.search(r"target <= 3: (met|MISSED)", match["detail"])


def test_an_unknown_benchmark_name_is_refused_with_the_known_names(tmp_path: Path) -> None:
    finished = _run(tmp_path, "--only", "no_such_figure")

    assert finished.returncode != 0
    assert finished.stdout == ""
    assert "recall_p99_ms" in finished.stderr
