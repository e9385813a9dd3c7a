"""Periodic jobs shared by every process on the database: whose turn it is to run one.

Each process schedules the same jobs (the ledger purge, consolidation); before a run it
asks :func:`take_turn`, which lets exactly one of the processes through per interval: the
first to ask after the previous turn ran out. One statement decides it, so two processes
asking at once cannot both win.
"""

from __future__ import annotations

from datetime import timedelta

from memory.postgres.session import Session

__all__ = ["TURN_SHARE", "take_turn"]

TURN_SHARE = 0.9
"""A turn lasts this share of the job's interval, so the process whose timer fires next
after it, whichever it is, takes the next turn: about one run per interval, never one
per process."""


async def take_turn(db: Session, job: str, every: timedelta) -> bool:
    """Whether this process runs ``job`` now (True for one process per interval)."""
    row = await db.row(
        "INSERT INTO job_turns (name, until) VALUES (%(job)s, now() + %(turn)s)"
        " ON CONFLICT (name) DO UPDATE SET until = excluded.until"
        " WHERE job_turns.until <= now()"
        " RETURNING name",
        {"job": job, "turn": every * TURN_SHARE},
    )
    return row is not None
