"""What is votable, through the real app over HTTP: every part of an answer from the
moment Slack shows it, and never a notice."""

from __future__ import annotations

from typing import Any

from bot.agent import EMPTY_REPLY_TEXT
from bot.agent.messages import ToolCall
from bot.answering.service import MODEL_UNAVAILABLE
from bot.server import HttpServer
from bot.simulator import FakeLLMServer
from bot.simulator.model import ScriptedReply, echo_last_user_message
from memory import EpisodeStatus, MemoryStore
from tests.support.harness import ALICE, GENERAL, SignedSlack

PREAMBLE = "Here is what I know so far about the kestrel rollout. " * 12


def memory_of(server: HttpServer) -> MemoryStore:
    services = server.bot.services
    assert services is not None
    return services.memory


async def test_a_reaction_on_part_one_of_an_answer_still_streaming_counts(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    def model(request: dict[str, Any]) -> ScriptedReply:
        """The agent writes a long preamble, calls a tool, then slowly finishes; the 👍
        makes the reflection worker ask for a score meanwhile."""
        if not request.get("tools"):
            return echo_last_user_message(request)
        if any(message["role"] == "tool" for message in request["messages"]):
            return ScriptedReply.answer("And that is all for today.", delay_seconds=2.0)
        look_up = ToolCall(id="call_1", name="current_datetime", arguments="{}")
        return ScriptedReply.calls(look_up, text=PREAMBLE)

    fake_llm.responder = model
    await slack.mention("how is the kestrel rollout going?")
    await slack.fake.wait_for(
        lambda: any(m.text.strip() for m in slack.fake.bot_messages(GENERAL)),
        what="part one on screen",
    )
    [part_one] = slack.fake.bot_messages(GENERAL)
    assert part_one.streaming, "the answer is still being written"

    await slack.react(part_one, reaction="+1")
    [answer] = await slack.answers(1, channel=GENERAL)

    assert answer.ts == part_one.ts
    [episode] = await memory_of(slack.server).list_episodes(ALICE)
    assert episode.status is EpisodeStatus.SUCCESS
    assert episode.answer.endswith("And that is all for today."), "the whole text is kept"


async def test_an_empty_completion_notice_is_never_recorded_nor_votable(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(*(ScriptedReply.empty() for _ in range(3)))
    notice = await slack.ask_in_dm("what about the kestrel rollout?")
    assert notice.text == EMPTY_REPLY_TEXT

    await slack.vote(notice, reaction="+1")

    export = await memory_of(slack.server).export_user(ALICE)
    assert (export.episodes, export.ledger_entries, export.votes) == ([], 0, [])
    assert notice.blocks is None, "no feedback buttons under a notice"


async def test_a_model_unavailable_notice_in_a_thread_is_never_recorded(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    fake_llm.down = True
    await slack.mention("is the kestrel rollout done?")
    [notice] = await slack.answers(1, channel=GENERAL)
    assert notice.text.strip() == MODEL_UNAVAILABLE

    await slack.vote(notice, reaction="+1")

    export = await memory_of(slack.server).export_user(ALICE)
    assert (export.episodes, export.ledger_entries) == ([], 0)
