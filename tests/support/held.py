"""Holding a store verb back, as a slow database would, until the test lets it go."""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

import pytest

from tests.support.harness import ALICE, SignedSlack, dm_channel


def held_back(monkeypatch: pytest.MonkeyPatch, target: object, verb: str) -> asyncio.Event:
    """Make ``target.verb`` wait until the returned event is set, then run as before."""
    release = asyncio.Event()
    original = getattr(target, verb)

    async def waiting(*args: Any, **kwargs: Any) -> Any:
        await release.wait()
        return await original(*args, **kwargs)

    monkeypatch.setattr(target, verb, waiting)
    return release


async def command_past_the_store(
    slack: SignedSlack,
    monkeypatch: pytest.MonkeyPatch,
    *,
    command: str,
    listener: ModuleType,
    verb: str,
) -> tuple[Any, dict[str, Any]]:
    """Alice's ``command`` in her DM while the store's ``verb`` outlasts the ``listener``
    module's patience: its acknowledgement's body, and the one follow-up that comes once
    the store answers (none before)."""
    release = held_back(monkeypatch, slack.services.memory, verb)
    monkeypatch.setattr(listener, "STORE_WITHIN_SECONDS", 0.05)
    response = await slack.command(command, user=ALICE, channel=dm_channel(ALICE))
    assert slack.fake.responses == []
    release.set()
    [follow_up] = await slack.fake.wait_for_responses(1)
    return response.json(), follow_up
