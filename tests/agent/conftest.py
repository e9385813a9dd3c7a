"""Fixtures for the agent's tests: an in-process model, fake memory and Slack."""

from __future__ import annotations

import pytest

from bot.agent import TurnContext
from tests.support.agent import make_context


@pytest.fixture
def context() -> TurnContext:
    """A turn in a DM, with fake memory and Slack (:func:`make_context`'s defaults)."""
    return make_context()
