"""Seed 001's story: a tool that always returns truncated JSON, and a naive model."""

from __future__ import annotations

from benchmarks.scenarios import (
    MINIMUM_LLM_CALLS,
    NAIVE_PATIENCE,
    malformed_tool_story,
    wasted_llm_calls,
)


async def test_the_guarded_loop_wastes_at_most_two_calls_and_answers_clearly() -> None:
    result = await malformed_tool_story(guarded=True)

    assert result.llm_calls - MINIMUM_LLM_CALLS <= 2
    assert result.stop_reason == "loop_detected"
    assert result.text.startswith("I couldn't get usable data from search_orders")
    assert result.tool_errors[0].code == "invalid_json"


async def test_the_unguarded_loop_retries_until_the_model_gives_up() -> None:
    result = await malformed_tool_story(guarded=False)

    assert result.llm_calls == NAIVE_PATIENCE + 1
    assert result.tool_errors == []


def test_wasted_llm_calls_reports_the_difference() -> None:
    guarded, unguarded = wasted_llm_calls(True), wasted_llm_calls(False)

    assert guarded <= 2
    assert unguarded == NAIVE_PATIENCE + 1 - MINIMUM_LLM_CALLS
    assert unguarded >= 5 * max(guarded, 1)
