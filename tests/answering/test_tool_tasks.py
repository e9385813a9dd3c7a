"""A tool call as a task the person watches."""

from __future__ import annotations

import pytest

from bot.agent import ToolCall, ToolStage
from bot.answering.tool_tasks import task_update


@pytest.mark.parametrize(
    ("stage", "status"),
    [
        (ToolStage.STARTED, "in_progress"),
        (ToolStage.SUCCEEDED, "complete"),
        (ToolStage.FAILED, "error"),
    ],
)
def test_each_stage_has_slacks_status(stage: ToolStage, status: str) -> None:
    call = ToolCall(id="call_7", name="recall_my_memories", arguments='{"query": "secret"}')

    update = task_update(call, stage)

    assert (update.id, update.title, update.status) == ("call_7", "Recall my memories", status)
    assert "secret" not in update.model_dump_json()  # arguments are never shown
