"""The erasure fence through the real app over HTTP: after /forget, nothing that started
before it writes about the person, and nothing they said before it reaches a prompt."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from bot.composition import consolidate_now
from bot.server import HttpServer
from bot.simulator import FakeLLMServer
from bot.simulator.model import ScriptedReply, echo_last_user_message
from memory import MemoryStore
from tests.support.harness import ALICE, BOB, GENERAL, SignedSlack, dm_channel

SECRET = "How do I open the vellichor vault behind the quokka door?"


def memory_of(server: HttpServer) -> MemoryStore:
    services = server.bot.services
    assert services is not None
    return services.memory


async def forget(slack: SignedSlack, user: str = ALICE) -> None:
    response = await slack.command("/forget", user=user, channel=dm_channel(user))
    assert response.status_code == 200
    assert "erased" in response.text or "nothing" in response.text


async def test_an_answer_in_flight_at_forget_is_shown_but_never_recorded_nor_votable(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(ScriptedReply.answer("Through the quokka door.", delay_seconds=1.0))
    await slack.dm(SECRET)
    await fake_llm.wait_for_requests(1)
    await forget(slack)

    [answer] = await slack.answers(1, channel=dm_channel(ALICE))
    assert "quokka" in answer.text, "the person still gets the answer"
    await slack.vote(answer, reaction="+1")

    export = await memory_of(slack.server).export_user(ALICE)
    assert (export.episodes, export.ledger_entries, export.votes) == ([], 0, [])


async def test_a_slack_retry_of_an_answered_event_after_forget_is_not_answered_again(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    message = slack.fake.add_user_message(dm_channel(ALICE), SECRET, user=ALICE)
    event = slack.message_event(message, channel_type="im")
    await slack.send_event(event, event_id="Ev0ANSWERED1")
    await slack.answers(1, channel=dm_channel(ALICE))
    await forget(slack)

    await slack.send_event(event, event_id="Ev0ANSWERED1", retry_num=1)
    await slack.settled()

    assert len(fake_llm.requests) == 1
    assert len(slack.fake.final_messages(dm_channel(ALICE))) == 1
    assert (await memory_of(slack.server).export_user(ALICE)).episodes == []


async def test_a_consolidation_running_at_forget_writes_no_note_about_the_person(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    summarizing = asyncio.Event()

    def model(request: dict[str, Any]) -> ScriptedReply:
        if "past exchanges between one person" in json.dumps(request["messages"]):
            summarizing.set()
            return ScriptedReply.answer(
                '["Open the vellichor vault by the quokka door."]', delay_seconds=1.0
            )
        return echo_last_user_message(request)

    fake_llm.responder = model
    answer = await slack.ask_in_dm(SECRET)
    await slack.vote(answer, reaction="+1")

    components = slack.server.bot.components
    assert components is not None
    consolidating = asyncio.create_task(consolidate_now(components.consolidator))
    await asyncio.wait_for(summarizing.wait(), timeout=5)
    await forget(slack)
    report = await consolidating

    assert report.notes == 0
    assert await memory_of(slack.server).list_wisdom(ALICE) == []


async def test_a_dm_read_back_from_slack_after_forget_leaves_out_what_came_before(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    conversation = (await slack.dm(SECRET)).ts  # the DM thread it starts
    await slack.answers(1, channel=dm_channel(ALICE))
    await slack.dm("and the second door?", thread_ts=conversation)
    await slack.answers(2, channel=dm_channel(ALICE))
    assert "vellichor" in fake_llm.prompt_for("and the second door?"), "history is read"

    await forget(slack)
    await slack.dm("a fresh start: what is a good lunch?", thread_ts=conversation)
    await slack.answers(3, channel=dm_channel(ALICE))
    await slack.dm("and dessert?", thread_ts=conversation)
    await slack.answers(4, channel=dm_channel(ALICE))

    prompt = fake_llm.prompt_for("and dessert?")
    for word in ("vellichor", "quokka", "second door"):
        assert word not in prompt, word
    assert "good lunch" in prompt, "what came after /forget is history as usual"


async def test_a_thread_read_back_for_someone_else_leaves_out_a_forgotten_persons_part(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    root = await slack.mention(SECRET, user=ALICE)
    await slack.answers(1, channel=GENERAL)
    await forget(slack)

    await slack.mention("bob: what was this thread about?", user=BOB, thread_ts=root.ts)
    await slack.answers(2, channel=GENERAL)

    prompt = fake_llm.prompt_for("bob: what was this thread about?")
    assert "vellichor" not in prompt and "quokka" not in prompt


async def test_a_lesson_drawn_while_its_author_was_forgotten_lands_on_nobody(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    reflecting_on_alice = asyncio.Event()

    def model(request: dict[str, Any]) -> ScriptedReply:
        if "rejected answer" in json.dumps(request["messages"]) and "vellichor" in json.dumps(
            request["messages"]
        ):
            reflecting_on_alice.set()
            return ScriptedReply.answer("Mention the vellichor vault door first.", delay_seconds=2)
        return echo_last_user_message(request)

    fake_llm.responder = model
    root = await slack.mention(SECRET, user=ALICE)
    [alice_answer] = await slack.answers(1, channel=GENERAL)
    await slack.react(alice_answer, user=ALICE, reaction="-1")
    await asyncio.wait_for(reflecting_on_alice.wait(), timeout=5)
    await forget(slack)

    await slack.mention("bob: how do I reset the lunch rota?", user=BOB, thread_ts=root.ts)
    bob_answer = (await slack.answers(2, channel=GENERAL))[-1]
    await slack.react(bob_answer, user=BOB, reaction="-1")
    memory = memory_of(slack.server)
    for _ in range(100):  # the worker finishes Alice's lesson, then draws Bob's
        [bob_episode] = await memory.list_episodes(BOB)
        if bob_episode.lesson is not None:
            break
        await asyncio.sleep(0.05)

    assert bob_episode.lesson is not None
    assert "vellichor" not in bob_episode.lesson


async def test_an_answer_in_flight_at_forget_is_left_out_of_the_thread_for_everyone_after(
    slack: SignedSlack, fake_llm: FakeLLMServer
) -> None:
    def model(request: dict[str, Any]) -> ScriptedReply:
        last = request["messages"][-1]
        if request.get("tools") and "vellichor" in str(last.get("content")):
            return ScriptedReply.answer(f"Answer: {last['content']}", delay_seconds=2.0)
        return echo_last_user_message(request)

    fake_llm.responder = model
    root = await slack.mention(SECRET, user=ALICE)
    await fake_llm.wait_for_requests(1)
    await slack.mention("bob: and the lunch rota?", user=BOB, thread_ts=root.ts)
    await slack.answers(1, channel=GENERAL)
    await forget(slack)
    [*_, alice_answer] = await slack.answers(2, channel=GENERAL)
    assert "vellichor" in alice_answer.text, "posted after Bob's answer, after /forget"

    await slack.mention("carol: what was said here?", user="U0000CAROL", thread_ts=root.ts)
    await slack.answers(3, channel=GENERAL)

    prompt = fake_llm.prompt_for("carol: what was said here?")
    assert "lunch rota" in prompt, "the rest of the thread is history as usual"
    assert "vellichor" not in prompt and "quokka" not in prompt
