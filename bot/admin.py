"""Administrative commands of ``python -m bot``: consolidate, memory, export, stats.

Each ``run_*`` function takes the settings and the parsed arguments, prints its result to
stdout and returns the exit code. They open the same database the bot uses (SQLite allows
it while the bot runs) and close it before returning.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import TypeVar

from bot.app import build_consolidator
from bot.config import Settings
from bot.llm import OpenAICompatibleProvider, RetryPolicy, build_llm_client
from memory import ConsolidationReport, MemoryStore, StoreStats, UserExport, open_store
from memory.text import shorten

__all__ = [
    "consolidate_once",
    "describe_export",
    "describe_stats",
    "run_consolidate",
    "run_export",
    "run_memory",
    "run_stats",
]

T = TypeVar("T")

TEXT_CHARS = 160
"""Questions, answers, lessons and notes are shortened to this in ``memory`` output."""


@asynccontextmanager
async def opened_store(settings: Settings) -> AsyncIterator[MemoryStore]:
    store = await open_store(str(settings.bot_db_path), settings.memory_config())
    try:
        yield store
    finally:
        await store.close()


def _with_store(settings: Settings, use: Callable[[MemoryStore], Awaitable[T]]) -> T:
    async def run() -> T:
        async with opened_store(settings) as store:
            return await use(store)

    return asyncio.run(run())


async def consolidate_once(settings: Settings) -> ConsolidationReport:
    """One consolidation run with the model-backed summarizer, as the app's schedule does."""
    client = build_llm_client(
        str(settings.llm_base_url),
        settings.llm_api_key.get_secret_value(),
        settings.llm_timeout_seconds,
    )
    provider = OpenAICompatibleProvider(
        client,
        model=settings.llm_model,
        retry=RetryPolicy(total_budget_seconds=settings.llm_retry_budget_seconds),
    )
    try:
        async with opened_store(settings) as store:
            consolidator = build_consolidator(store, provider, settings)
            return await consolidator.consolidate(now=datetime.now(UTC))
    finally:
        await client.aclose()


def run_consolidate(settings: Settings, args: argparse.Namespace) -> int:
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
        if episode.lesson:
            lines.append(f"  lesson: {shorten(episode.lesson, TEXT_CHARS)}")
    for note in export.wisdom:
        where = f"{note.scope.kind.value} {note.scope.channel_id}"
        lines.append(f"- note {note.id} {where}: {shorten(note.text, TEXT_CHARS)}")
    return "\n".join(lines)


def run_memory(settings: Settings, args: argparse.Namespace) -> int:
    export = _with_store(settings, lambda store: store.export_user(args.user_id))
    print(describe_export(export))
    return 0


def run_export(settings: Settings, args: argparse.Namespace) -> int:
    """Everything stored about one person as JSON (for data-access requests)."""
    export = _with_store(settings, lambda store: store.export_user(args.user_id))
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


def run_stats(settings: Settings, args: argparse.Namespace) -> int:
    print(describe_stats(_with_store(settings, lambda store: store.stats())))
    return 0
