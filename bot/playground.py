"""``python -m bot.playground``: talk to the real bot, in HTTP mode, with no Slack workspace.

It starts the fake Slack Web API and (unless ``--real-llm``) the fake OpenAI-compatible model
that the test suite uses, the real bot's HTTP server on ``--port`` against them, and reads
what you do from standard input, one line each::

    dm how do I rotate the staging password?     a direct message to the bot
    mention what does the deploy script do?      an @mention in #general (answered in a thread)
    thread and on production?                    a follow-up in that thread, without a mention
    +1  /  -1                                    react 👍 / 👎 to the bot's last answer
    unreact +1                                   remove that reaction
    as bob  /  as alice                          who you are
    memory  /  forget                            the /memory and /forget commands
    quit

Every request reaches the bot signed, over HTTP, exactly as Slack sends it; each answer is
printed with the Web API calls that delivered it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import httpx

from bot.app import Bot
from bot.config import Settings
from bot.server import EVENTS_PATH, HttpServer
from bot.testing import FakeLLMServer
from bot.testing.fake_slack import FakeMessage, FakeSlackWebAPI
from bot.testing.slack_people import ALICE, BOB, GENERAL, SIGNING_SECRET, SlackPeople
from memory import EpisodeStatus

__all__ = ["Playground", "main"]

PEOPLE = {"alice": ALICE, "bob": BOB}
STREAMING_METHODS = ("chat.startStream", "chat.appendStream", "chat.stopStream")


class Playground:
    """One person at a time talking to the bot through :class:`SlackPeople`."""

    def __init__(self, bot: Bot, people: SlackPeople, *, answer_timeout: float) -> None:
        self._bot = bot
        self._people = people
        self._fake = people.fake
        self._timeout = answer_timeout
        self.user = ALICE
        self._last_answer: FakeMessage | None = None
        self._last_mention: FakeMessage | None = None

    async def handle(self, line: str) -> str:
        """Carry out one line of input and say what happened."""
        verb, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        people, user = self._people, self.user
        match verb.lower():
            case "dm" if rest:
                _, said = await self._ask(lambda: people.dm(rest, user=user))
                return said
            case "mention" if rest:
                self._last_mention, said = await self._ask(lambda: people.mention(rest, user=user))
                return said
            case "thread" if rest:
                mention = self._last_mention
                if mention is None:
                    return "Mention the bot first: mention <question>"
                _, said = await self._ask(lambda: people.say(rest, user=user, thread_ts=mention.ts))
                return said
            case "+1" | "-1" as reaction:
                return await self._react(reaction, added=True)
            case "unreact" if rest:
                return await self._react(rest, added=False)
            case "as" if rest.lower() in PEOPLE:
                self.user = PEOPLE[rest.lower()]
                return f"You are now {rest.lower()} ({self.user})."
            case "memory" | "forget":
                return _command_text(await people.command(f"/{verb.lower()}", user=user))
            case _:
                return (
                    "Try: dm <text>, mention <text>, thread <text>, +1, -1, unreact +1, "
                    "as bob, memory, forget, quit."
                )

    async def _ask(self, send: Callable[[], Awaitable[FakeMessage]]) -> tuple[FakeMessage, str]:
        """Send a question, wait for its one answer, and describe how it was delivered."""
        answers_before = len(self._fake.final_messages())
        calls_before = len(self._fake.calls)
        question = await send()
        answers = await self._fake.wait_for_final_messages(answers_before + 1, within=self._timeout)
        await self._settled()
        self._last_answer = answers[-1]
        methods = [call.method for call in self._fake.calls[calls_before:]]
        streamed = sum(methods.count(method) for method in STREAMING_METHODS)
        how = f"streamed in {streamed} calls" if streamed else "posted, then updated"
        where = "in the DM" if self._last_answer.channel.startswith("D") else "in #general"
        where += ", in a thread" if self._last_answer.thread_ts else ""
        return question, f"bot ({how}, {where}):\n{self._last_answer.text}"

    async def _react(self, reaction: str, *, added: bool) -> str:
        if self._last_answer is None:
            return "There is no answer to react to yet."
        await self._people.react(
            self._last_answer, user=self.user, reaction=reaction.strip(":"), added=added
        )
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


def _command_text(response: httpx.Response) -> str:
    if response.status_code != 200:
        return f"The command failed with HTTP {response.status_code}."
    body = response.json() if response.content else {}
    texts = [body.get("text", "")]
    for block in body.get("blocks", []):
        text = block.get("text")
        if isinstance(text, dict):
            texts.append(text.get("text", ""))
        texts.extend(element.get("text", "") for element in block.get("elements", []))
    return "\n".join(text for text in texts if isinstance(text, str) and text)


@asynccontextmanager
async def running_playground(args: argparse.Namespace) -> AsyncIterator[Playground]:
    async with AsyncExitStack() as stack:
        fake_slack = await stack.enter_async_context(FakeSlackWebAPI())
        overrides: dict[str, object] = {
            "slack_bot_token": fake_slack.token,
            "slack_signing_secret": SIGNING_SECRET,
            "slack_app_token": None,
            "slack_api_url": fake_slack.base_url,
            "bot_db_path": args.db,
        }
        if not args.real_llm:
            fake_llm = await stack.enter_async_context(FakeLLMServer())
            overrides |= {"llm_base_url": fake_llm.base_url, "llm_model": fake_llm.model}
        settings = Settings(**overrides)  # type: ignore[arg-type]
        server = HttpServer(Bot(settings), host="127.0.0.1", port=args.port)
        await server.start()
        stack.push_async_callback(server.stop)
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=30.0))
        people = SlackPeople(f"{server.url}{EVENTS_PATH}", fake_slack, http)
        fake_slack.add_user(ALICE, name="alice", real_name="Alice")
        fake_slack.add_user(BOB, name="bob", real_name="Bob")
        print(
            f"The bot listens on {server.url}{EVENTS_PATH} (HTTP mode); "
            f"fake Slack at {fake_slack.base_url}; model at {settings.llm_base_url}; "
            f"memory in {settings.bot_db_path}. You are alice; #general is {GENERAL}.",
            flush=True,
        )
        yield Playground(server.bot, people, answer_timeout=args.answer_timeout)


async def _lines() -> AsyncIterator[str]:
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        yield line


async def run(args: argparse.Namespace) -> None:
    async with running_playground(args) as playground:
        async for line in _lines():
            if line.strip().lower() in {"quit", "exit"}:
                break
            if line.strip():
                print(await playground.handle(line), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bot.playground", description=__doc__)
    parser.add_argument("--port", type=int, default=3000, help="the bot's HTTP port")
    parser.add_argument("--db", type=Path, default=Path("playground.db"), help="SQLite file")
    parser.add_argument(
        "--real-llm", action="store_true", help="use LLM_BASE_URL/LLM_MODEL/LLM_API_KEY"
    )
    parser.add_argument("--answer-timeout", type=float, default=120.0, help="seconds")
    asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
