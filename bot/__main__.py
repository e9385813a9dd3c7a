"""``python -m bot``: serve the bot, or run an administrative command.

Subcommands (``python -m bot --help``): ``serve`` (the default), and the administrative
``forget USER_ID``, ``forget-workspace TEAM_ID``, ``memory USER_ID``, ``export USER_ID``,
``stats`` and ``consolidate``
(implemented in :mod:`bot.admin`), which need only the database setting, never Slack's.
A new command is one ``add_parser`` call in :func:`build_parser` with its ``run`` function.
Every problem ends the process with one line on stderr and the exit code in :data:`EPILOG`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys
from collections.abc import Callable, Sequence

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.admin import (
    CommandFailed,
    database_unusable,
    run_consolidate,
    run_export,
    run_forget,
    run_forget_workspace,
    run_memory,
    run_stats,
)
from bot.config import AdminSettings, ConfigurationError, Settings, load_settings
from bot.logging_setup import configure_logging
from bot.server import CannotListen, serve
from bot.slack.unreachable import unreachable_cause
from memory import StoreError

__all__ = ["EPILOG", "EXIT_CONFIG", "EXIT_FAILED", "build_parser", "main"]

PLAYGROUND = "playground"
EXIT_FAILED = 1
EXIT_CONFIG = 2
EXIT_INTERRUPTED = 130
EPILOG = """\
exit codes:
  0    done (serve: stopped by SIGTERM or Ctrl-C)
  1    the command ran but could not do its job: forget (or forget-workspace) found
       nothing stored about that ID; consolidate could not get an answer from the model
  2    a configuration problem, in one line naming the setting: a setting missing,
       empty or invalid; BOT_DB_PATH missing, a folder, empty, read-only or not a
       database; BOT_DB_URL's server, database or role unusable; PORT in use; Slack
       refused a token; or the command line itself was wrong
  130  interrupted by Ctrl-C before the bot was serving

The admin commands read only BOT_DB_PATH (and the LLM_* settings, for consolidate)
from the environment or .env; serve also needs the Slack settings.
"""

Command = Callable[[AdminSettings, argparse.Namespace], int]
TEAM_ID = re.compile(r"T[A-Z0-9]+")


def run_serve(settings: AdminSettings, args: argparse.Namespace) -> int:
    assert isinstance(settings, Settings)
    try:
        asyncio.run(serve(settings, grace_seconds=args.grace))
    except SlackApiError as error:
        raise ConfigurationError(
            f"Slack rejected SLACK_BOT_TOKEN ({error.response.get('error')}): check the token"
        ) from None
    except (aiohttp.ClientError, TimeoutError) as error:
        cause = unreachable_cause(error, timeout=settings.slack_timeout_seconds)
        raise ConfigurationError(
            f"Slack is unreachable at SLACK_API_URL ({settings.slack_api_url}): {cause}; "
            "check the URL and the network"
        ) from None
    except CannotListen as error:
        raise ConfigurationError(f"PORT: {error}: stop what uses it, or set another") from None
    except StoreError as error:
        raise database_unusable(settings, error) from None
    except OSError as error:
        raise ConfigurationError(f"could not start: {error.strerror or error}") from None
    return 0


def _with_user_id(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("user_id", help="the person's Slack user ID, e.g. U0123ABCD")


def _with_user_id_in_a_workspace(parser: argparse.ArgumentParser) -> None:
    _with_user_id(parser)
    parser.add_argument(
        "--workspace",
        type=_team_id,
        metavar="TEAM_ID",
        help="only what the person taught in this workspace (OAuth mode, Enterprise Grid)",
    )


def _team_id(value: str) -> str:
    if not TEAM_ID.fullmatch(value):
        raise argparse.ArgumentTypeError(
            f"not a Slack team ID (T followed by letters/digits): {value!r}"
        )
    return value


def _with_team_id(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "team_id", type=_team_id, help="the workspace's Slack team ID, e.g. T0123ABCD"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="A Slack assistant that learns from its users' emoji reactions.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve_parser = commands.add_parser("serve", help="run the bot (the default)", epilog=EPILOG)
    serve_parser.add_argument(
        "--grace",
        type=float,
        default=6.0,
        help="seconds answers in flight get to finish on SIGTERM (default: 6)",
    )
    serve_parser.set_defaults(run=run_serve, settings=Settings)
    commands.add_parser(  # listed for --help; main() hands its arguments to the playground
        PLAYGROUND,
        help="the real bot against a fake Slack and model, from the terminal (no workspace)",
        add_help=False,
    )
    admin: list[tuple[str, str, Command, Callable[[argparse.ArgumentParser], None] | None]] = [
        ("forget", "erase everything about one person", run_forget, _with_user_id),
        (
            "forget-workspace",
            "erase everything kept of one workspace, as uninstalling the app does",
            run_forget_workspace,
            _with_team_id,
        ),
        (
            "memory",
            "show what is stored about one person",
            run_memory,
            _with_user_id_in_a_workspace,
        ),
        (
            "export",
            "everything stored about one person, as JSON (data-access requests)",
            run_export,
            _with_user_id_in_a_workspace,
        ),
        ("stats", "counts: episodes by status, votes, recalls, tool errors", run_stats, None),
        (
            "consolidate",
            "turn recent rated answers into wisdom notes now, once",
            run_consolidate,
            None,
        ),
    ]
    for name, summary, run, arguments in admin:
        command = commands.add_parser(
            name,
            help=summary,
            description=summary,
            epilog=EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if arguments is not None:
            arguments(command)
        command.set_defaults(run=run, settings=AdminSettings)
    parser.set_defaults(run=run_serve, settings=Settings, grace=6.0)
    return parser


def run_playground(arguments: list[str]) -> int:
    """``python -m bot playground ...``: :mod:`bot.playground` with the rest of the line. It
    is imported here only, so that the bot's own commands never load the fakes it runs on."""
    from bot.playground import main as play

    play(arguments)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == [PLAYGROUND]:
        return run_playground(arguments[1:])
    args = build_parser().parse_args(arguments)
    try:
        settings = load_settings(args.settings)
        configure_logging(settings.log_level, settings.log_format, secrets=settings.secret_values())
        command: Command = args.run
        return command(settings, args)
    except ConfigurationError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except CommandFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        logging.getLogger(__name__).info("interrupted")
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
