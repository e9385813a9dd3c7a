"""Block Kit payloads the bot shows: pure functions from memory values to Slack JSON.

Every builder stays within Slack's limits (:mod:`bot.views.limits`); none looks anything
up, so what a person sees is exactly what the caller chose to pass in.
"""

from bot.views.app_home import FORGET_EVERYTHING_ACTION_ID, home_view
from bot.views.feedback import (
    FEEDBACK_ACTION_ID,
    FEEDBACK_ACTION_PATTERN,
    FEEDBACK_FOOTERS,
    vote_for,
)
from bot.views.limits import clip
from bot.views.memory_list import (
    FORGET_ITEM_ACTION_ID,
    ItemKind,
    ItemRef,
    memory_list_blocks,
)

__all__ = [
    "FEEDBACK_ACTION_ID",
    "FEEDBACK_ACTION_PATTERN",
    "FEEDBACK_FOOTERS",
    "FORGET_EVERYTHING_ACTION_ID",
    "FORGET_ITEM_ACTION_ID",
    "ItemKind",
    "ItemRef",
    "clip",
    "home_view",
    "memory_list_blocks",
    "vote_for",
]
