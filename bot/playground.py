"""``python -m bot.playground``: talk to the real bot, in HTTP mode, with no Slack workspace.

It starts the fake Slack Web API and (unless ``--real-llm``) the fake OpenAI-compatible model
that the test suite uses, the real bot's HTTP server on ``--port`` against them, and reads
what you do from standard input, one line each::

    dm how do I rotate the staging password?     a direct message to the bot
    mention what does the deploy script do?      an @mention in #general (answered in a thread)
    thread and on production?                    a follow-up in that thread, without a mention
    +1  /  -1                                    react 👍 / 👎 to the bot's last answer
    unreact +1                                   remove that reaction
    click +1  /  click -1                        click the answer's feedback buttons instead
    as bob  /  as alice                          who you are
    memory                                       /memory in the current conversation
    forget                                       the /forget command
    home                                         open the bot's Home tab
    quit                                         (or Ctrl-C, or the end of the input)

Every request reaches the bot signed, over HTTP, exactly as Slack sends it; each answer is
printed with the Web API calls that delivered it and what memory put into the prompt (what
the bot recalled and the advice it drew), so you can watch it learn. With ``--real-llm`` the
model's requests pass through a local recording proxy, which is how the prompt is seen.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import httpx
from pydantic import ValidationError

from bot.app import Bot
from bot.composition import probe_configured_model
from bot.config import ConfigurationError, Settings, describe_validation_error
from bot.llm import describe_endpoint
from bot.server import EVENTS_PATH, CannotListen, HttpServer
from bot.simulator import FakeLLMServer
from bot.simulator.recording_proxy import RecordingProxy
from bot.simulator.slack_people import ALICE, BOB, GENERAL, SIGNING_SECRET, SlackPeople, dm_channel
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from bot.views import FEEDBACK_ACTION_ID
from memory import EpisodeStatus, StoreError

__all__ = ["ModelRequests", "Playground", "main"]

PEOPLE = {"alice": ALICE, "bob": BOB}
STREAMING_METHODS = ("chat.startStream", "chat.appendStream", "chat.stopStream")
CLICKS = {"+1": "up", "-1": "down"}
STOP_GRACE_SECONDS = 1.0
"""How long an answer in flight may take to finish when the playground stops."""
HELP = (
    "Try: dm <text>, mention <text>, thread <text>, +1, -1, unreact +1, click +1, click -1, "
    "as bob, memory, forget, home, quit."
)


class ModelRequests(Protocol):
    """The fake model, or the recording proxy in front of a real one: the chat request
    bodies the bot sent, in order."""

    requests: list[dict[str, Any]]


class Playground:
    """One person at a time talking to the bot through :class:`SlackPeople`."""

    def __init__(
        self,
        bot: Bot,
        people: SlackPeople,
        *,
        answer_timeout: float,
        model: ModelRequests | None = None,
    ) -> None:
        """``model``: what the model was sent, which shows what memory put into the prompt."""
        self._bot = bot
        self._people = people
        self._fake = people.fake
        self._timeout = answer_timeout
        self._model = model
        self.user = ALICE
        self.channel = dm_channel(ALICE)
        """The current conversation: the DM, or #general after a mention."""
        self._last_answer: FakeMessage | None = None
        self._last_mention: FakeMessage | None = None

    async def handle(self, line: str) -> str:
        """Carry out one line of input and say what happened."""
        verb, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        people, user = self._people, self.user
        match verb.lower():
            case "dm" if rest:
                self.channel = dm_channel(user)
                _, said = await self._ask(rest, lambda: people.dm(rest, user=user))
                return said
            case "mention" if rest:
                self.channel = GENERAL
                self._last_mention, said = await self._ask(
                    rest, lambda: people.mention(rest, user=user)
                )
                return said
            case "thread" if rest:
                mention = self._last_mention
                if mention is None:
                    return "Mention the bot first: mention <question>"
                self.channel = GENERAL
                _, said = await self._ask(
                    rest, lambda: people.say(rest, user=user, thread_ts=mention.ts)
                )
                return said
            case "+1" | "-1" as reaction:
                return await self._react(reaction, added=True)
            case "unreact" if rest:
                return await self._react(rest, added=False)
            case "click" if rest in CLICKS:
                return await self._click(CLICKS[rest])
            case "as" if rest.lower() in PEOPLE:
                self.user = PEOPLE[rest.lower()]
                if self.channel.startswith("D"):
                    self.channel = dm_channel(self.user)
                return f"You are now {rest.lower()} ({self.user})."
            case "memory":
                return _command_text(
                    await people.command("/memory", user=user, channel=self.channel)
                )
            case "forget":
                return _command_text(await people.command("/forget", user=user))
            case "home":
                return await self._home()
            case _:
                return HELP

    async def _ask(
        self, text: str, send: Callable[[], Awaitable[FakeMessage]]
    ) -> tuple[FakeMessage, str]:
        """Send a question, wait for its one answer, and describe how it was delivered and
        what memory put into the prompt."""
        answers_before = len(self._fake.final_messages())
        calls_before = len(self._fake.calls)
        requests_before = len(self._model.requests) if self._model is not None else 0
        question = await send()
        answers = await self._fake.wait_for_final_messages(answers_before + 1, within=self._timeout)
        await self._settled()
        self._last_answer = answers[-1]
        methods = [call.method for call in self._fake.calls[calls_before:]]
        streamed = sum(methods.count(method) for method in STREAMING_METHODS)
        how = f"streamed in {streamed} calls" if streamed else "posted, then updated"
        where = "in the DM" if self._last_answer.channel.startswith("D") else "in #general"
        where += ", in a thread" if self._last_answer.thread_ts else ""
        said = f"bot ({how}, {where}):\n{self._last_answer.text}"
        if self._model is not None:
            said += "\n" + _memory_in_prompt(self._model.requests[requests_before:], text)
        return question, said

    async def _react(self, reaction: str, *, added: bool) -> str:
        if self._last_answer is None:
            return "There is no answer to react to yet."
        await self._people.react(
            self._last_answer, user=self.user, reaction=reaction.strip(":"), added=added
        )
        return await self._validated()

    async def _click(self, value: str) -> str:
        if self._last_answer is None:
            return "There is no answer to click on yet."
        response = await self._people.click(
            self._last_answer,
            action_id=FEEDBACK_ACTION_ID,
            value=value,
            user=self.user,
            action_type="feedback_buttons",
        )
        if response.status_code != 200:
            return f"The click failed with HTTP {response.status_code}."
        return await self._validated()

    async def _home(self) -> str:
        published = len(self._fake.calls_to("views.publish"))
        await self._people.open_home(user=self.user)
        await self._fake.wait_for(
            lambda: len(self._fake.calls_to("views.publish")) > published,
            what="the Home tab",
            within=self._timeout,
        )
        view = self._fake.calls_to("views.publish")[-1].args.get("view") or {}
        return "Home tab:\n" + _blocks_text(view.get("blocks", []))

    async def _validated(self) -> str:
        await self._settled()
        services = self._bot.services
        assert services is not None
        episodes = await services.memory.list_episodes(self.user)
        liked = sum(episode.status is EpisodeStatus.SUCCESS for episode in episodes)
        disliked = len(episodes) - liked
        return f"Your validated memories: {liked} 👍, {disliked} 👎."

    async def _settled(self) -> None:
        services = self._bot.services
        if services is not None:
            await services.inflight.wait_idle()


def _memory_in_prompt(requests: Sequence[Mapping[str, Any]], question: str) -> str:
    """What memory added to the model request that answered ``question``: its system
    messages after the first (the instructions)."""
    for request in requests:
        messages = [m for m in request.get("messages", []) if isinstance(m, dict)]
        users = [m.get("content") for m in messages if m.get("role") == "user"]
        if users and isinstance(users[-1], str) and question in users[-1]:
            systems = [m.get("content") for m in messages if m.get("role") == "system"][1:]
            added = [text for text in systems if isinstance(text, str) and text.strip()]
            if not added:
                return "memory put nothing into the prompt (nothing relevant is validated yet)"
            return "memory put into the prompt:\n" + "\n".join(
                f"  | {line}" for text in added for line in text.splitlines()
            )
    return "memory put nothing into the prompt (no model request was seen)"


def _blocks_text(blocks: Sequence[Mapping[str, Any]]) -> str:
    texts: list[str] = []
    for block in blocks:
        text = block.get("text")
        if isinstance(text, dict):
            texts.append(text.get("text", ""))
        texts.extend(element.get("text", "") for element in block.get("elements", []))
    return "\n".join(text for text in texts if isinstance(text, str) and text)


def _command_text(response: httpx.Response) -> str:
    if response.status_code != 200:
        return f"The command failed with HTTP {response.status_code}."
    body = response.json() if response.content else {}
    return "\n".join(
        text for text in (body.get("text", ""), _blocks_text(body.get("blocks", []))) if text
    )


@asynccontextmanager
async def running_playground(args: argparse.Namespace) -> AsyncIterator[Playground]:
    async with AsyncExitStack() as stack:
        fake_slack = await stack.enter_async_context(FakeSlackWebAPI())
        # Its own SQLite file, whatever BOT_DB_URL or BOT_DB_PATH say: its fake people
        # must never be written into the bot's real database.
        overrides: dict[str, object] = {
            "slack_bot_token": fake_slack.token,
            "slack_signing_secret": SIGNING_SECRET,
            "slack_app_token": None,
            "slack_api_url": fake_slack.base_url,
            "bot_db_path": args.db,
            "bot_db_url": None,
        }
        model: ModelRequests
        if args.real_llm:
            real = _settings(overrides)
            await _check_real_model(real)
            upstream = str(real.llm_base_url)
            proxy = await stack.enter_async_context(RecordingProxy(upstream))
            overrides["llm_base_url"] = proxy.base_url
            model, model_shown = proxy, f"{upstream} (through {proxy.base_url}, which records)"
        else:
            fake_llm = await stack.enter_async_context(FakeLLMServer())
            overrides |= {"llm_base_url": fake_llm.base_url, "llm_model": fake_llm.model}
            model, model_shown = fake_llm, f"{fake_llm.base_url} (a fake that echoes)"
        settings = _settings(overrides)
        server = HttpServer(
            Bot(settings), host="127.0.0.1", port=args.port, grace_seconds=STOP_GRACE_SECONDS
        )
        try:
            await server.start()
        except CannotListen as error:
            raise ConfigurationError(f"{error}: stop it, or pick another with --port") from None
        except StoreError as error:
            raise ConfigurationError(f"--db cannot be used: {error}") from None
        stack.push_async_callback(server.stop)
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=30.0))
        people = SlackPeople(f"{server.url}{EVENTS_PATH}", fake_slack, http)
        fake_slack.add_user(ALICE, name="alice", real_name="Alice")
        fake_slack.add_user(BOB, name="bob", real_name="Bob")
        print(
            f"The bot listens on {server.url}{EVENTS_PATH} (HTTP mode); "
            f"fake Slack at {fake_slack.base_url}; model {settings.llm_model} at {model_shown}; "
            f"memory in {settings.bot_db_path} (the playground's own file: BOT_DB_URL and "
            f"BOT_DB_PATH are not used). You are alice; #general is {GENERAL}.",
            flush=True,
        )
        yield Playground(server.bot, people, answer_timeout=args.answer_timeout, model=model)


def _settings(overrides: dict[str, object]) -> Settings:
    """The environment's and ``.env``'s settings with ``overrides``; a bad one is one line."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as error:
        raise ConfigurationError(describe_validation_error(error)) from None


async def _check_real_model(settings: Settings) -> None:
    """With ``--real-llm``, the model in the settings must answer before anything starts:
    otherwise every answer would only show the recording proxy's 502."""
    status = await probe_configured_model(settings)
    if not status.ok:
        endpoint = describe_endpoint(str(settings.llm_base_url))
        raise ConfigurationError(
            f"--real-llm: the model endpoint {endpoint} {status.problem}; start it, or set "
            "LLM_BASE_URL and LLM_MODEL (or leave out --real-llm to use the fake model)"
        )


async def _lines() -> AsyncIterator[str]:
    """Standard input, line by line, read by a daemon thread: a blocked read never keeps
    the process from exiting (on Ctrl-C or ``quit``)."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, "")

    threading.Thread(target=read, name="stdin", daemon=True).start()
    while line := await lines.get():
        yield line


async def run(args: argparse.Namespace) -> None:
    async with running_playground(args) as playground:
        async for line in _lines():
            if line.strip().lower() in {"quit", "exit"}:
                break
            if line.strip():
                print(await playground.handle(line), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bot.playground",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,  # keeps the table of verbs
    )
    parser.add_argument("--port", type=int, default=3000, help="the bot's HTTP port")
    parser.add_argument("--db", type=Path, default=Path("playground.db"), help="SQLite file")
    parser.add_argument(
        "--real-llm", action="store_true", help="use LLM_BASE_URL/LLM_MODEL/LLM_API_KEY"
    )
    parser.add_argument("--answer-timeout", type=float, default=120.0, help="seconds")
    try:
        asyncio.run(run(parser.parse_args(argv)))
    except ConfigurationError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
