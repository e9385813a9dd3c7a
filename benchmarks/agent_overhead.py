"""``agent_overhead_ms_p50``: what one turn costs in our own code.

A turn is :meth:`bot.answering.AnswerService.answer` on the running bot for a top-level
DM, from a person with 100 validated episodes in that DM: dedupe claims, recall, wisdom,
prompt building, the agent loop with its evaluators, the streamed reply (a "thinking"
post, then its update) and the ledger write. The fake LLM answers at once and fake Slack
on 127.0.0.1. After each turn the same LLM request is replayed through a bare provider
(the same :class:`OpenAICompatibleProvider` code, a client of its own; every request
the turn made, if an evaluator sent a draft back) and the answer posted by a bare
``chat.postMessage``; the overhead of the turn is its time minus those, and the figure
is the median over the turns.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.corpus import Corpus
from benchmarks.harness import BotUnderTest, Figure, Target, bot_under_test, percentile
from bot.agent import CompletionRequest, Message, ToolDefinition
from bot.answering import AnswerOutcome, IncomingMessage
from bot.llm import OpenAICompatibleProvider, build_llm_client
from memory import ConversationKind, MemoryStore, Scope
from tests.support.answers import record_answer

__all__ = ["FIGURES", "NAME", "replayed_request", "run"]

NAME = "agent_overhead"
FIGURES = ("agent_overhead_ms_p50",)

PERSON = "U0000TURNS"
DM = "D0000TURNS"
REMEMBERED = 100
WARM_UP = 10
KEPT_MESSAGES = 50
"""Fake Slack lists a DM's history by scanning every message it holds; keeping the DM
this long (the bot reads the latest 20) keeps the fake's cost from growing with turns."""
CORPUS_SEED = 21


def replayed_request(body: dict[str, Any]) -> CompletionRequest:
    """The request the fake LLM recorded, back as the agent's :class:`CompletionRequest`."""
    return CompletionRequest(
        messages=[
            Message(role=message["role"], content=message.get("content") or "")
            for message in body["messages"]
        ],
        tools=[ToolDefinition(**tool["function"]) for tool in body.get("tools", [])],
        max_tokens=body.get("max_tokens"),
        temperature=body.get("temperature"),
    )


async def _remember(memory: MemoryStore, scope: Scope, corpus: Corpus) -> None:
    """Give the person validated episodes to recall, already reflected on (so the
    reflection worker has nothing to do during the turns)."""
    start = datetime.now(UTC) - timedelta(days=60)
    for index in range(REMEMBERED):
        failed = index % 4 == 3
        episode = await record_answer(
            memory,
            scope,
            PERSON,
            ts=f"{1_600_000_000 + index}.000200",
            question=corpus.question(),
            answer=corpus.answer(),
            at=start + timedelta(hours=index),
            reaction="-1" if failed else "+1",
        )
        if failed:
            await memory.set_lesson(episode.id, "Ask which environment before answering.")
        else:
            await memory.set_importance(episode.id, 1 + index % 10)


async def _bare_llm_ms(provider: OpenAICompatibleProvider, bodies: list[dict[str, Any]]) -> float:
    """The turn's LLM requests again, each streamed or not as the turn asked for it."""
    started = time.perf_counter()
    for body in bodies:
        request = replayed_request(body)
        if body.get("stream"):
            async for _ in provider.stream(request):
                pass
        else:
            await provider.complete(request)
    return (time.perf_counter() - started) * 1000


async def _bare_post_ms(bench: BotUnderTest, text: str) -> float:
    started = time.perf_counter()
    await bench.server.bot.client.chat_postMessage(channel=DM, text=text)
    return (time.perf_counter() - started) * 1000


async def _measure(turns: int) -> tuple[list[float], list[float], list[float], int]:
    """Milliseconds of each turn, of its bare LLM calls and of a bare post; and how many
    LLM calls the turns made."""
    corpus = Corpus(CORPUS_SEED)
    async with bot_under_test() as bench:
        services = bench.slack.services
        team_id = bench.fake_slack.team_id
        await _remember(
            services.memory,
            Scope(team_id=team_id, channel_id=DM, kind=ConversationKind.DM),
            corpus,
        )
        settings = bench.server.bot.settings
        async with build_llm_client(
            str(settings.llm_base_url),
            settings.llm_api_key.get_secret_value(),
            settings.llm_timeout_seconds,
        ) as llm_client:
            provider = OpenAICompatibleProvider(llm_client, model=settings.llm_model)
            turn_ms: list[float] = []
            llm_ms: list[float] = []
            post_ms: list[float] = []
            llm_calls = 0
            for index in range(WARM_UP + turns):
                message = bench.fake_slack.add_user_message(DM, corpus.question(), user=PERSON)
                incoming = IncomingMessage(
                    event_id=f"EvTurn{index:06d}",
                    team_id=team_id,
                    channel_id=DM,
                    user_id=PERSON,
                    text=message.text,
                    ts=message.ts,
                    is_dm=True,
                    reply_in_thread=False,
                )
                asked_before = len(bench.fake_llm.requests)
                started = time.perf_counter()
                outcome = await services.answering.answer(incoming)
                elapsed = (time.perf_counter() - started) * 1000
                if outcome is not AnswerOutcome.ANSWERED:
                    raise RuntimeError(f"turn {index} was not answered: {outcome}")
                answer = bench.fake_slack.final_messages(DM)[-1].text
                kept = bench.fake_slack.messages[DM]
                del kept[:-KEPT_MESSAGES]
                turn_requests = bench.fake_llm.requests[asked_before:]
                bare_llm = await _bare_llm_ms(provider, turn_requests)
                bare_post = await _bare_post_ms(bench, answer)
                if index >= WARM_UP:
                    llm_calls += len(turn_requests)
                    turn_ms.append(elapsed)
                    llm_ms.append(bare_llm)
                    post_ms.append(bare_post)
    return turn_ms, llm_ms, post_ms, llm_calls


def run(quick: bool) -> list[Figure]:
    turns = 100 if quick else 500
    turn_ms, llm_ms, post_ms, llm_calls = asyncio.run(_measure(turns))
    overhead = [turn - llm - post for turn, llm, post in zip(turn_ms, llm_ms, post_ms, strict=True)]
    return [
        Figure(
            name="agent_overhead_ms_p50",
            value=percentile(overhead, 0.5),
            unit="ms",
            detail=f"turn p50 {percentile(turn_ms, 0.5):.2f} ms, its bare LLM calls p50"
            f" {percentile(llm_ms, 0.5):.2f} ms ({llm_calls / turns:.2f} a turn), bare"
            f" postMessage p50 {percentile(post_ms, 0.5):.2f} ms, {turns} turns",
            target=Target.at_most(5),
        )
    ]
