"""Bolt tries each listener registered before the one an event is for, each try costing it
about what a small listener does: a 👍 (whose 200 waits for its commit) is tried first, a
message second, and each reaches the function that handles it without a router between."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from slack_bolt.listener.async_listener import AsyncCustomListener

from tests.support.harness import SignedSlack


async def test_bolt_tries_one_listener_for_a_vote_and_two_for_a_message(
    slack: SignedSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    tried: Counter[str] = Counter()
    matches = AsyncCustomListener.async_matches

    async def counted(self: AsyncCustomListener, **kwargs: Any) -> bool:
        tried[kwargs["req"].body["event"]["type"]] += 1
        return await matches(self, **kwargs)

    monkeypatch.setattr(AsyncCustomListener, "async_matches", counted)
    message = await slack.say("Anyone up for lunch?")
    await slack.react(message)

    assert tried == {"message": 2, "reaction_added": 1}
