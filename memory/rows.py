"""Rows of the backends' ``episodes`` and ``wisdom`` tables, laid out alike, as models; a
time is stored its own way (:mod:`memory.sqlite.codec`'s text in SQLite, ``timestamptz`` in
PostgreSQL), so each backend passes its reader."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from memory.models import ConversationKind, Episode, Scope, WisdomNote

Row = TypeVar("Row", Episode, WisdomNote)
TimeReader = Callable[[Any], datetime]
"""Turns a time as the database returns it into a datetime."""


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC; a naive datetime is taken to be UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def scope_from_row(row: dict[str, Any]) -> Scope:
    return Scope(
        team_id=row["team_id"],
        channel_id=row["channel_id"],
        kind=ConversationKind(row["kind"]),
        enterprise_id=row.get("enterprise_id") or "",
    )


def episode_from_row(row: dict[str, Any], read_time: TimeReader) -> Episode:
    return _from_row(Episode, row, read_time, ("created_at", "validated_at"))


def wisdom_from_row(row: dict[str, Any], read_time: TimeReader) -> WisdomNote:
    return _from_row(WisdomNote, row, read_time, ("created_at",))


def _from_row(
    model: type[Row], row: dict[str, Any], read_time: TimeReader, times: tuple[str, ...]
) -> Row:
    """The model of a row whose columns are its fields, with ``team_id``, ``channel_id`` and
    ``kind`` for its scope; the ``times`` columns (empty ones left alone) read as times."""
    values = {**row, "scope": scope_from_row(row)}
    for column in times:
        if values[column]:
            values[column] = read_time(values[column])
    return model.model_validate(values)
