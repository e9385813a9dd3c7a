"""Whom the erasure fence fences off: a person, or a whole workspace.

The fence (``forgotten``: a keyed hash of a subject, and when it was erased) holds one
row per subject. A person is their user id, as ever; a workspace that uninstalled the app
is :func:`workspace_subject` of its team id (no user id holds the separator). Work about a
person in a workspace is fenced by either.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime


def workspace_subject(team_id: str) -> str:
    """The fence's subject for everything kept of one workspace."""
    return f"workspace\x1f{team_id}"


def fence_subjects(user_id: str, team_id: str | None) -> list[str]:
    """The subjects whose erasure fences off work about ``user_id`` in ``team_id``."""
    return [user_id] if not team_id else [user_id, workspace_subject(team_id)]


def latest_erasures(
    people: Iterable[str], team_id: str | None, erased: dict[str, datetime]
) -> dict[str, datetime]:
    """Each person's latest erasure among their subjects (``erased``: when each subject
    was forgotten); absent when none of theirs ever was."""
    latest: dict[str, datetime] = {}
    for user_id in people:
        times = [erased[s] for s in fence_subjects(user_id, team_id) if s in erased]
        if times:
            latest[user_id] = max(times)
    return latest
