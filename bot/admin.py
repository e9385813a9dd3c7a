"""Administrative commands of ``python -m bot``: forget, memory, export, stats, consolidate.

Each ``run_*`` function takes the :class:`AdminSettings` (no Slack token is needed) and the
parsed arguments, prints its result to stdout and returns the exit code. They open the same
database the bot uses, through the composition root (:func:`bot.composition.open_database`;
SQLite allows it while the bot runs), and close it before returning.
They never create a database file: a ``BOT_DB_PATH`` that does not exist, is read-only or is
not a database, or a ``BOT_DB_URL`` whose server cannot be used, is a
:class:`ConfigurationError` of one line; a command that ran but could not do
its job raises :class:`CommandFailed`.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import TypeVar

from bot.composition import build_consolidator, open_database, open_model
from bot.config import AdminSettings, ConfigurationError
from bot.llm import (
    describe_endpoint,
    probe_model,
)
from memory import ConsolidationReport, MemoryStore, StoreError, StoreStats, UserExport
from memory.text import shorten

__all__ = [
    "CommandFailed",
    "consolidate_once",
    "database_unusable",
    "describe_export",
    "describe_stats",
    "run_consolidate",
    "run_export",
    "run_forget",
    "run_forget_workspace",
    "run_memory",
    "run_stats",
]

T = TypeVar("T")

TEXT_CHARS = 160
"""Questions, answers, reasons, lessons and notes are shortened to this in ``memory`` output."""


class CommandFailed(Exception):
    """The command ran but could not do its job; the message is one line saying why."""


def database_unusable(settings: AdminSettings, error: StoreError | OSError) -> ConfigurationError:
    """One line naming the database setting and what is wrong with it (the store's error
    says what to do). The URL is not quoted: it may hold a password."""
    setting = "BOT_DB_URL" if settings.bot_db_url is not None else "BOT_DB_PATH"
    return ConfigurationError(f"{setting} cannot be used: {error}")


@asynccontextmanager
async def opened_store(settings: AdminSettings) -> AsyncIterator[MemoryStore]:
    """The bot's existing database, opened by the composition root; never a new file (a
    mistyped path must not look empty). With ``BOT_DB_URL`` set, the PostgreSQL database it
    names (migrated if it is new). Any error of the store is one line saying what to fix."""
    try:
        async with open_database(settings, existing=True) as store:
            yield store
    except (StoreError, OSError) as error:
        raise database_unusable(settings, error) from None


def _with_store(settings: AdminSettings, use: Callable[[MemoryStore], Awaitable[T]]) -> T:
    async def run() -> T:
        async with opened_store(settings) as store:
            return await use(store)

    return asyncio.run(run())


def run_forget(settings: AdminSettings, args: argparse.Namespace) -> int:
    """Erase everything about one person; nobody matching the ID is a failure (exit 1)."""
    report = _with_store(settings, lambda store: store.forget_user(args.user_id))
    if report.total == 0:
        raise CommandFailed(
            f"nothing is stored about {args.user_id}: check the user ID (nothing was erased)"
        )
    for kind, count in sorted(report.counts.items()):
        print(f"{kind}: {count}")
    print(f"erased {report.total} row(s) about {report.user_id}")
    return 0


def run_forget_workspace(settings: AdminSettings, args: argparse.Namespace) -> int:
    """Erase everything kept of one workspace, as its uninstalling the app does (its
    installation too: the bot answers there again only once it is installed anew);
    nothing stored about it is a failure (exit 1)."""
    report = _with_store(settings, lambda store: store.forget_workspace(args.team_id))
    if report.total == 0:
        raise CommandFailed(
            f"nothing is stored about the workspace {args.team_id}: check the team ID"
            " (nothing was erased)"
        )
    for kind, count in sorted(report.counts.items()):
        print(f"{kind}: {count}")
    print(f"erased {report.total} row(s) of the workspace {report.team_id}")
    return 0


async def consolidate_once(settings: AdminSettings) -> ConsolidationReport:
    """One consolidation run with the model-backed summarizer, as the app's schedule does.

    Raises :class:`CommandFailed` when a model request failed (the conversations it was
    for keep their previous notes)."""
    endpoint = describe_endpoint(str(settings.llm_base_url))
    async with (
        open_model(settings) as (client, provider, requests),
        opened_store(settings) as store,
    ):
        status = await probe_model(client, settings.llm_model)
        if not status.ok:
            raise CommandFailed(
                f"the model endpoint {endpoint} {status.problem}: nothing was changed"
            )
        consolidator = build_consolidator(store, provider, settings)
        report = await consolidator.consolidate(now=datetime.now(UTC))
    if requests.last_error is not None:
        raise CommandFailed(
            f"the model {settings.llm_model} at {endpoint} failed ({requests.last_error}); "
            f"{report.skipped} conversation(s) kept their previous notes"
        )
    return report


def run_consolidate(settings: AdminSettings, args: argparse.Namespace) -> int:
    report = asyncio.run(consolidate_once(settings))
    print(
        f"consolidated {report.scopes} conversation(s) into {report.notes} note(s); "
        f"{report.skipped} skipped (the previous notes were kept)"
    )
    return 0


def describe_export(export: UserExport) -> str:
    """What is stored about one person, for a human: episodes of every status, notes."""
    lines = [
        f"{export.user_id}: {len(export.episodes)} episode(s), {len(export.wisdom)} note(s), "
        f"{export.ledger_entries} ledger entr{'y' if export.ledger_entries == 1 else 'ies'}, "
        f"{len(export.votes)} vote(s)"
    ]
    for episode in export.episodes:
        where = f"{episode.scope.kind.value} {episode.scope.channel_id}"
        lines.append(
            f"- episode {episode.id} [{episode.status.value}] {where} {episode.created_at:%Y-%m-%d}"
        )
        lines.append(f"  Q: {shorten(episode.question, TEXT_CHARS)}")
        lines.append(f"  A: {shorten(episode.answer, TEXT_CHARS)}")
        if episode.reason:
            lines.append(f"  reason: {shorten(episode.reason, TEXT_CHARS)}")
        if episode.lesson:
            lines.append(f"  lesson: {shorten(episode.lesson, TEXT_CHARS)}")
    for note in export.wisdom:
        where = f"{note.scope.kind.value} {note.scope.channel_id}"
        lines.append(f"- note {note.id} {where}: {shorten(note.text, TEXT_CHARS)}")
    return "\n".join(lines)


def _export(settings: AdminSettings, args: argparse.Namespace) -> UserExport:
    """What is stored about ``args.user_id`` (in the workspace ``--workspace``, when given)."""
    return _with_store(
        settings, lambda store: store.export_user(args.user_id, team_id=args.workspace)
    )


def run_memory(settings: AdminSettings, args: argparse.Namespace) -> int:
    export = _export(settings, args)
    print(describe_export(export))
    return 0


def run_export(settings: AdminSettings, args: argparse.Namespace) -> int:
    """Everything stored about one person as JSON (for data-access requests)."""
    export = _export(settings, args)
    print(export.model_dump_json(indent=2))
    return 0


def describe_stats(stats: StoreStats) -> str:
    """Counts for operators: episodes by status, votes, recalls, tool errors by class/tool."""
    statuses = ", ".join(
        f"{status} {count}" for status, count in sorted(stats.episodes_by_status.items())
    )
    lines = [f"episodes: {statuses}", f"votes: {stats.votes}", f"recalls: {stats.recalls}"]
    by_class: dict[str, dict[str, int]] = {}
    for name, count in stats.tool_errors.items():
        error_class, _, tool = name.partition(":")
        by_class.setdefault(error_class, {})[tool or "?"] = count
    lines.append(f"tool errors: {sum(stats.tool_errors.values())}")
    for error_class, tools in sorted(by_class.items()):
        per_tool = ", ".join(f"{tool} {count}" for tool, count in sorted(tools.items()))
        lines.append(f"  {error_class}: {sum(tools.values())} ({per_tool})")
    return "\n".join(lines)


def run_stats(settings: AdminSettings, args: argparse.Namespace) -> int:
    print(describe_stats(_with_store(settings, lambda store: store.stats())))
    return 0
