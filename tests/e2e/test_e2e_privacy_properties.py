"""A property of the whole app, over real HTTP with a real SQLite file: no sequence of
questions (in DMs, new channel threads and replies in others' threads), votes, vote
removals, /forget, Slack retries and tool calls by several people lets one person's text
reach another person's prompt, or anyone's text from before their /forget reach a prompt
after it.

Every question carries a token of its own, owned by its asker; the fake model echoes the
question, and calls ``recall_my_memories`` when asked to, so tokens travel through answers,
episodes, lessons, tool results and working notes. After the run, each prompt the fake
model received for an answer is checked token by token against what its asker may see:
their own words, what was said in the same channel thread (visible there to anyone), and,
with ``SHARE_CHANNEL_SUCCESSES`` on, channel answers whose asker's latest vote is 👍.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.agent.messages import ToolCall
from bot.config import Settings
from bot.simulator import FakeLLMServer
from bot.simulator.model import ScriptedReply, echo_last_user_message
from bot.simulator.slack_web_api import FakeMessage, FakeSlackWebAPI
from tests.support.harness import GENERAL, SignedSlack, dm_channel, running

EXAMPLES = int(os.environ.get("PRIVACY_EXAMPLES", "15"))
TOPICS = ["deploy billing to staging", "rotate the vault keys", "restart the search cluster"]
RECALL_WORD = "RECALLPLEASE"
_serials = itertools.count(1)
_TOKEN = re.compile(r"zq(\d{6})x")


def _question(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The last question asked: a draft the bot's review sent back ends with the review's
    words, and the redraft still answers the question before them."""
    users = [m for m in messages if m["role"] == "user"]
    return next((m for m in reversed(users) if _TOKEN.search(str(m["content"]))), users[-1])


def recalling_model(request: dict[str, Any]) -> ScriptedReply:
    """Echoes the question; asked to recall, first calls ``recall_my_memories``.

    Each answer also carries words of its own, made from its question's token, so that two
    answers on one topic differ as a real model's would: an echo alone read as a repeat of
    the 👎'd answer before it, and the bot then rightly said it had no other answer, with no
    token in it to find."""
    messages = request["messages"]
    last_user = next(m for m in reversed(messages) if m["role"] == "user")
    already_called = any(m["role"] == "tool" for m in messages)
    if request.get("tools") and RECALL_WORD in str(last_user["content"]) and not already_called:
        query = json.dumps({"query": "deploy billing vault keys search cluster"})
        return ScriptedReply.calls(
            ToolCall(id="call_1", name="recall_my_memories", arguments=query)
        )
    question = _question(messages)
    echo = echo_last_user_message({**request, "messages": messages[: messages.index(question) + 1]})
    own = _TOKEN.findall(str(question["content"]))[-1:]
    words = [f"k{digits[::-1]}{letter}" for digits in own for letter in "abcdefgh"]
    return echo.model_copy(update={"text": " ".join([echo.text, *words])})


# -- what people do -------------------------------------------------------------------------
Ask = tuple[str, int, str, int, bool]  # ("ask", person, where, thread choice, recall)
Vote = tuple[str, int, int, str, bool, bool]
"""("vote", person, answer choice, emoji, added, cast by the asker instead of the person)"""
Forget = tuple[str, int]  # ("forget", person)
Retry = tuple[str, int]  # ("retry", DM question choice)

people = st.integers(min_value=0, max_value=2)
asks = st.tuples(
    st.just("ask"),
    people,
    st.sampled_from(["dm", "channel", "reply"]),
    st.integers(0, 9),
    st.booleans(),
)
steps = st.one_of(
    asks,
    asks,
    st.tuples(
        st.just("ask"),
        people,
        st.sampled_from(["dm", "channel", "reply"]),
        st.integers(0, 9),
        st.booleans(),
    ),
    st.tuples(
        st.just("vote"),
        people,
        st.integers(0, 9),
        st.sampled_from(["+1", "-1"]),
        st.booleans(),
        st.booleans(),
    ),
    st.tuples(st.just("forget"), people),
    st.tuples(st.just("retry"), st.integers(0, 9)),
)


@dataclass
class Said:
    token: str
    author: str
    conversation: tuple[str, str]
    """(channel, thread ts): where the question, and its answer, can be seen."""
    step: int


@dataclass
class Run:
    slack: SignedSlack
    fake_llm: FakeLLMServer
    people: list[str]
    sharing: bool
    said: dict[str, Said] = field(default_factory=dict)
    threads: list[str] = field(default_factory=list)
    dm_events: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    forgotten: dict[str, list[int]] = field(default_factory=dict)
    prompts: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """(step, request) of every answering request the model received."""
    asker_votes: dict[str, dict[str, int]] = field(default_factory=dict)
    """Token -> the asker's reactions still on its answer, each with when it was added."""
    shared: dict[int, set[str]] = field(default_factory=dict)
    """Step -> tokens of channel answers their askers had 👍 (shareable) during that step."""
    _vote_order: itertools.count[int] = field(default_factory=itertools.count)

    async def ask(self, step: int, person: str, where: str, pick: int, recall: bool) -> None:
        token = f"zq{next(_serials):06d}x"
        # A question, so it is answered even right after its asker's 👎 in the same thread
        # (where it is also that 👎's reason).
        text = f"{RECALL_WORD if recall else 'please'} {TOPICS[pick % 3]} {token}?"
        if where == "dm":
            message = self.slack.fake.add_user_message(dm_channel(person), text, user=person)
            event = self.slack.message_event(message, channel_type="im")
            event_id = f"Ev0{token.upper()}"
            await self.slack.send_event(event, event_id=event_id)
            self.dm_events.append((event, event_id))
            conversation = (dm_channel(person), message.ts)
        elif where == "reply" and self.threads:
            root = self.threads[pick % len(self.threads)]
            await self.slack.mention(text, user=person, channel=GENERAL, thread_ts=root)
            conversation = (GENERAL, root)
        else:
            message = await self.slack.mention(text, user=person, channel=GENERAL)
            self.threads.append(message.ts)
            conversation = (GENERAL, message.ts)
        self.said[token] = Said(token, person, conversation, step)
        await self.slack.fake.wait_for(
            lambda: self.answer_to(token) is not None, within=15, what=f"the answer to {token}"
        )

    def answer_to(self, token: str) -> FakeMessage | None:
        return next((m for m in self.slack.fake.final_messages() if token in m.text), None)

    async def vote(self, person: str, pick: int, emoji: str, added: bool, by_asker: bool) -> None:
        if not self.said:
            return
        said = list(self.said.values())[pick % len(self.said)]
        answer = self.answer_to(said.token)
        assert answer is not None
        voter = said.author if by_asker else person
        await self.slack.react(answer, user=voter, reaction=emoji, added=added)
        if voter == said.author:
            present = self.asker_votes.setdefault(said.token, {})
            if added:
                present.setdefault(emoji, next(self._vote_order))
            else:
                present.pop(emoji, None)

    def note_shared(self, step: int) -> None:
        """Which answers a channel's members may be shown now (the asker's latest vote 👍)."""
        self.shared[step] = {
            token
            for token, present in self.asker_votes.items()
            if present
            and max(present, key=present.__getitem__) == "+1"
            and self.said[token].conversation[0] == GENERAL
            and not self.erased_before(self.said[token], step)
        }

    async def forget(self, step: int, person: str) -> None:
        response = await self.slack.command("/forget", user=person, channel=dm_channel(person))
        assert response.status_code == 200
        self.forgotten.setdefault(person, []).append(step)

    async def retry(self, pick: int) -> None:
        if self.dm_events:
            event, event_id = self.dm_events[pick % len(self.dm_events)]
            await self.slack.send_event(event, event_id=event_id, retry_num=1)

    # -- the property --------------------------------------------------------------------
    def erased_before(self, said: Said, step: int) -> bool:
        """Whether ``said``'s author was forgotten after saying it and before ``step``."""
        return any(said.step < at < step for at in self.forgotten.get(said.author, []))

    def check(self) -> None:
        for step, request in self.prompts:
            prompt = json.dumps(request["messages"], ensure_ascii=False)
            question = _question(request["messages"])
            [asker_token] = [t for t in self.said if t in str(question["content"])]
            asked = self.said[asker_token]
            for token, said in self.said.items():
                if token not in prompt or token == asker_token:
                    continue
                assert not self.erased_before(said, step), (
                    f"{token}, said before its author's /forget, reached a later prompt"
                )
                shared = self.sharing and token in self.shared[step]
                in_channel = asked.conversation[0] == GENERAL
                assert (
                    said.author == asked.author
                    or said.conversation == asked.conversation
                    or (shared and in_channel)
                ), f"{said.author}'s {token} reached {asked.author}'s prompt elsewhere"
        for token in self.said:
            answers = [m for m in self.slack.fake.final_messages() if token in m.text]
            assert len(answers) == 1, f"{token} was answered {len(answers)} times"


@pytest.fixture(params=[False, True], ids=["private", "sharing"])
async def shared_slack(
    request: pytest.FixtureRequest,
    settings: Settings,
    fake_slack: FakeSlackWebAPI,
    http: httpx.AsyncClient,
) -> AsyncIterator[SignedSlack]:
    """The bot with ``SHARE_CHANNEL_SUCCESSES`` off, then on (a channel's 👍 answers are then
    its members' to see too, and nothing else is)."""
    async with running(settings, fake_slack, http, share_channel_successes=request.param) as slack:
        yield slack


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=st.lists(steps, min_size=4, max_size=14))
@example(  # said after its author's /forget, then 👍'd: shareable like any other 👍
    plan=[
        ("ask", 0, "dm", 0, False),
        ("forget", 0),
        ("ask", 0, "channel", 0, False),
        ("vote", 0, 1, "+1", True, True),
        ("ask", 1, "channel", 0, False),
    ]
)
@example(  # an answer drawing on Alice's memories, then others asking in its thread
    plan=[
        ("ask", 0, "channel", 0, False),
        ("vote", 1, 0, "-1", True, True),
        ("ask", 0, "channel", 1, True),
        ("ask", 1, "reply", 1, False),
        ("forget", 0),
        ("ask", 2, "reply", 1, True),
    ]
)
@example(  # a question in the thread of its asker's 👎'd answer, on the same topic
    plan=[
        ("ask", 2, "reply", 0, True),
        ("ask", 0, "dm", 0, True),
        ("forget", 0),
        ("vote", 2, 0, "-1", True, False),
        ("ask", 2, "reply", 0, False),
        ("ask", 0, "dm", 1, True),
    ]
)
@example(  # a channel 👍 reaches others only while sharing is on and it stays a 👍
    plan=[
        ("ask", 0, "channel", 0, False),
        ("vote", 0, 0, "+1", True, True),
        ("ask", 1, "channel", 0, False),
        ("vote", 0, 0, "-1", True, True),
        ("ask", 2, "channel", 0, False),
    ]
)
async def test_no_sequence_lets_one_persons_text_reach_another_persons_prompt(
    shared_slack: SignedSlack, fake_llm: FakeLLMServer, plan: list[tuple[Any, ...]]
) -> None:
    slack = shared_slack
    fake_llm.responder = recalling_model
    serial = next(_serials)
    sharing = slack.server.bot.settings.share_channel_successes
    people = [f"U0P{serial:05d}{name}" for name in ("A", "B", "C")]
    run = Run(slack, fake_llm, people, sharing)
    for step, action in enumerate(plan):
        run.note_shared(step)
        seen = len(fake_llm.requests)
        match action:
            case ("ask", person, where, pick, recall):
                await run.ask(step, run.people[person], where, pick, recall)
            case ("vote", person, pick, emoji, added, by_asker):
                await run.vote(run.people[person], pick, emoji, added, by_asker)
            case ("forget", person):
                await run.forget(step, run.people[person])
            case ("retry", pick):
                await run.retry(pick)
        await slack.settled()
        run.prompts += [(step, r) for r in fake_llm.requests[seen:] if r.get("tools")]
    run.check()
