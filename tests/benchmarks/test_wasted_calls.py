"""The wasted-calls benchmark's story on the real bot: the guard stops a stubborn model
that repeats tool calls Slack made fail (counts of model calls, not speed)."""

from __future__ import annotations

from benchmarks.wasted_calls import UNGUARDED, wasted_calls


async def test_the_guard_stops_repeats_of_real_tool_failures_the_unguarded_bot_pays_for() -> None:
    guarded = await wasted_calls(None)
    unguarded = await wasted_calls(UNGUARDED)

    # Unknown user: refused once, then stopped. Vanished thread: the same. The unknown
    # user again in the same thread: the loop memory refuses it at once.
    assert guarded == [1, 1, 0]
    assert all(without > with_guard for with_guard, without in zip(guarded, unguarded, strict=True))
