"""Run the benchmarks and print one line per figure: ``name value unit (detail)``.

    python -m benchmarks.run [--quick] [--only NAME]

``--quick`` uses smaller sizes (under two minutes on 2 cores once the stores are
cached); ``--only`` runs the benchmark that has NAME as its name or one of its figures.
What each figure means, and the results measured at full size, are in README.md.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path
from types import ModuleType

from benchmarks import (
    ack_latency,
    agent_overhead,
    backends,
    ingest,
    reaction_throughput,
    recall,
    recall_public,
    recall_quality,
    round_trips,
    wasted_calls,
)
from benchmarks.harness import BENCH_DIR

__all__ = ["BENCHMARKS", "main", "select"]

BENCHMARKS: tuple[ModuleType, ...] = (
    wasted_calls,
    agent_overhead,
    reaction_throughput,
    ack_latency,
    ingest,
    round_trips,
    backends,
    recall_quality,
    recall_public,
    recall,
)
"""Cheapest first; the recall benchmark builds (or reuses) the large stores."""


def select(name: str | None) -> list[ModuleType]:
    """The benchmarks to run: all of them, or the one named ``name`` or making that figure."""
    if name is None:
        return list(BENCHMARKS)
    chosen = [module for module in BENCHMARKS if name == module.NAME or name in module.FIGURES]
    if not chosen:
        known = sorted(
            {module.NAME for module in BENCHMARKS}
            | {figure for module in BENCHMARKS for figure in module.FIGURES}
        )
        raise SystemExit(f"no benchmark named {name!r}; choose one of: {', '.join(known)}")
    return chosen


def _log_to_file() -> Path:
    """The bot's own logs would interleave with the figures: they go to a file instead."""
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    path = BENCH_DIR / "bench.log"
    logging.basicConfig(
        filename=path,
        filemode="w",
        level=logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a fast check")
    parser.add_argument("--only", metavar="NAME", help="run one benchmark (or figure) only")
    args = parser.parse_args(argv)
    chosen = select(args.only)
    log_file = _log_to_file()
    print(f"# logs: {log_file}", file=sys.stderr)
    for module in chosen:
        started = time.perf_counter()
        for figure in module.run(args.quick):
            print(figure.line(), flush=True)
        print(f"# {module.NAME}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
