"""Holding a store verb back, as a slow database would, until the test lets it go."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest


def held_back(monkeypatch: pytest.MonkeyPatch, target: object, verb: str) -> asyncio.Event:
    """Make ``target.verb`` wait until the returned event is set, then run as before."""
    release = asyncio.Event()
    original = getattr(target, verb)

    async def waiting(*args: Any, **kwargs: Any) -> Any:
        await release.wait()
        return await original(*args, **kwargs)

    monkeypatch.setattr(target, verb, waiting)
    return release
