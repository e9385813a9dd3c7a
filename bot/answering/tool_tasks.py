"""A tool call as the person sees it while the answer streams: a task with a status.

Only the tool's name is shown (as a short title), never its arguments or results, which
can hold what other people wrote.
"""

from __future__ import annotations

from bot.agent import ToolCall, ToolStage
from bot.slack.streaming import TaskUpdate

__all__ = ["task_update"]

_STATUS = {
    ToolStage.STARTED: "in_progress",
    ToolStage.SUCCEEDED: "complete",
    ToolStage.FAILED: "error",
}


def task_update(call: ToolCall, stage: ToolStage) -> TaskUpdate:
    """``read_thread`` started -> the task "Read thread", in progress."""
    title = call.name.replace("_", " ").strip().capitalize() or "Tool"
    return TaskUpdate(id=call.id, title=title, status=_STATUS[stage])
