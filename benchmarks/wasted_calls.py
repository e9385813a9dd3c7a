"""``wasted_llm_calls``: what the tool guard saves in the seed-001 story.

A tool returns malformed data every time and a naive model keeps retrying it
(:mod:`benchmarks.scenarios`). The figure is the LLM calls beyond the minimum for that
turn with the guard on; the same story with the guard off is the baseline.
"""

from __future__ import annotations

from benchmarks.harness import Comparison, Figure, Target
from benchmarks.scenarios import MINIMUM_LLM_CALLS, wasted_llm_calls

__all__ = ["FIGURES", "NAME", "run"]

NAME = "wasted_llm_calls"
FIGURES = ("wasted_llm_calls",)


def run(quick: bool) -> list[Figure]:
    guarded = wasted_llm_calls(guarded=True)
    unguarded = wasted_llm_calls(guarded=False)
    return [
        Figure(
            name="wasted_llm_calls",
            value=guarded,
            unit="calls",
            detail=f"unguarded baseline {unguarded} calls; minimum {MINIMUM_LLM_CALLS} a turn",
            target=Target(comparison=Comparison.AT_MOST, bound=2),
        )
    ]
