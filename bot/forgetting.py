"""Erasing everything the bot keeps about a person: the store, and running threads' notes."""

from __future__ import annotations

from memory import ForgetReport, MemoryStore, WorkingMemory

__all__ = ["Forgetting"]


class Forgetting:
    """``/forget``, the Home tab's *Forget everything* and ``python -m bot forget`` alike."""

    def __init__(self, store: MemoryStore, working_memory: WorkingMemory) -> None:
        self._store = store
        self._working_memory = working_memory

    async def forget_user(self, user_id: str) -> ForgetReport:
        report = await self._store.forget_user(user_id)
        self._working_memory.forget_user(user_id)
        return report
