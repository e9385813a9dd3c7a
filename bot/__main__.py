"""``python -m bot``: serve the bot, or run an administrative command.

Subcommands (``python -m bot --help``): ``serve`` (the default), ``forget USER_ID``, and
the administrative ``consolidate``, ``memory USER_ID``, ``export USER_ID`` and ``stats``
(implemented in :mod:`bot.admin`).
A new command is one ``add_parser`` call in :func:`build_parser` with its ``run`` function.
Configuration problems end the process with exit code 2 and one line saying what to fix.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sqlite3
import sys
from collections.abc import Callable, Sequence

import aiohttp
from pydantic import ValidationError
from slack_sdk.errors import SlackApiError

from bot.admin import run_consolidate, run_export, run_memory, run_stats
from bot.config import Settings
from bot.logging_setup import configure_logging
from bot.server import serve
from memory import open_store

__all__ = ["ConfigurationError", "build_parser", "load_settings", "main"]

EXIT_CONFIG = 2
LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")

Command = Callable[[Settings, argparse.Namespace], int]


class ConfigurationError(Exception):
    """A setting is missing or invalid; the message is one line naming it and the fix."""


def _describe(error: dict[str, object]) -> str:
    name = "_".join(str(part) for part in error.get("loc", ())).upper() or "a setting"
    if error.get("type") == "missing":
        return f"{name} is not set: export it or add it to .env (see .env.example)"
    return f"{name} is invalid ({error.get('msg')}): fix it in the environment or .env"


def load_settings() -> Settings:
    """Settings from the environment and ``.env``, or a :class:`ConfigurationError`."""
    try:
        settings = Settings()  # type: ignore[call-arg]  # required values come from the env
    except ValidationError as error:
        problems = [_describe(dict(item)) for item in error.errors()]
        raise ConfigurationError("; ".join(problems)) from None
    if settings.log_level.upper() not in LOG_LEVELS:
        raise ConfigurationError(f"LOG_LEVEL is invalid: use one of {', '.join(LOG_LEVELS)}")
    return settings


def run_serve(settings: Settings, args: argparse.Namespace) -> int:
    try:
        asyncio.run(serve(settings, grace_seconds=args.grace))
    except SlackApiError as error:
        raise ConfigurationError(
            f"Slack rejected SLACK_BOT_TOKEN ({error.response.get('error')}): check the token"
        ) from None
    except aiohttp.ClientError:
        raise ConfigurationError(
            f"Slack is unreachable at SLACK_API_URL ({settings.slack_api_url}): check the URL"
        ) from None
    except (sqlite3.Error, OSError) as error:
        raise ConfigurationError(
            f"could not start ({error}): check PORT is free and BOT_DB_PATH is writable"
        ) from None
    return 0


def run_forget(settings: Settings, args: argparse.Namespace) -> int:
    async def forget() -> None:
        store = await open_store(str(settings.bot_db_path), settings.memory_config())
        try:
            report = await store.forget_user(args.user_id)
        finally:
            await store.close()
        for kind, count in sorted(report.counts.items()):
            print(f"{kind}: {count}")
        print(f"erased {report.total} row(s) about {report.user_id}")

    asyncio.run(forget())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="A Slack assistant that learns from its users' emoji reactions.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve_parser = commands.add_parser("serve", help="run the bot (the default)")
    serve_parser.add_argument(
        "--grace",
        type=float,
        default=10.0,
        help="seconds answers in flight get to finish on SIGTERM (default: 10)",
    )
    serve_parser.set_defaults(run=run_serve)
    forget_parser = commands.add_parser("forget", help="erase everything about one person")
    forget_parser.add_argument("user_id", help="the person's Slack user ID, e.g. U0123ABCD")
    forget_parser.set_defaults(run=run_forget)
    commands.add_parser(
        "consolidate", help="turn recent rated answers into wisdom notes now, once"
    ).set_defaults(run=run_consolidate)
    memory_parser = commands.add_parser("memory", help="show what is stored about one person")
    memory_parser.add_argument("user_id", help="the person's Slack user ID, e.g. U0123ABCD")
    memory_parser.set_defaults(run=run_memory)
    export_parser = commands.add_parser(
        "export", help="everything stored about one person, as JSON (data-access requests)"
    )
    export_parser.add_argument("user_id", help="the person's Slack user ID, e.g. U0123ABCD")
    export_parser.set_defaults(run=run_export)
    commands.add_parser(
        "stats", help="counts: episodes by status, votes, recalls, tool errors"
    ).set_defaults(run=run_stats)
    parser.set_defaults(run=run_serve, grace=10.0)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
        configure_logging(settings.log_level)
        command: Command = args.run
        return command(settings, args)
    except ConfigurationError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        logging.getLogger(__name__).info("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
