"""Erasing everything the bot keeps about a person: the store, and running threads' notes."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.answering.working_notes import workspace_threads
from bot.observability import Observer
from memory import Erasure, ForgetReport, WorkingMemory, WorkspaceReport

__all__ = ["Forgetting"]


@dataclass(frozen=True)
class Forgetting:
    """``/forget``, the Home tab's *Forget everything* and ``python -m bot forget`` alike."""

    store: Erasure
    working_memory: WorkingMemory
    observer: Observer = field(default_factory=Observer)

    async def forget_user(self, user_id: str) -> ForgetReport:
        """Erase, logged as one ``forget`` event line."""
        async with self.observer.event("forget", user=user_id):
            report = await self.store.forget_user(user_id)
            self.working_memory.forget_user(user_id)
        return report

    async def forget_workspace(self, team_id: str) -> WorkspaceReport:
        """Erase a workspace that uninstalled the app (or an admin's ``forget-workspace``),
        logged as one ``forget_workspace`` event line."""
        async with self.observer.event("forget_workspace", team=team_id):
            report = await self.store.forget_workspace(team_id)
            self.working_memory.forget_threads(workspace_threads(team_id))
        return report
