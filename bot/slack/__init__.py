"""Outbound Slack: showing answers (streamed or posted), splitting them, read-only lookups."""

from bot.slack.directory import WebApiDirectory
from bot.slack.splitting import PART_LIMIT, split_message
from bot.slack.streaming import (
    THINKING_PLACEHOLDER,
    THINKING_STATUS,
    PostedReply,
    Reply,
    ReplyTarget,
    StreamingReply,
    open_reply,
)

__all__ = [
    "PART_LIMIT",
    "THINKING_PLACEHOLDER",
    "THINKING_STATUS",
    "PostedReply",
    "Reply",
    "ReplyTarget",
    "StreamingReply",
    "WebApiDirectory",
    "open_reply",
    "split_message",
]
