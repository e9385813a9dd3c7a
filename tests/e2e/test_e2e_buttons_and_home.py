"""Feedback buttons under answers and the Home tab, end to end."""

from __future__ import annotations

from typing import Any

from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.views import FEEDBACK_ACTION_ID, FORGET_EVERYTHING_ACTION_ID
from memory import EpisodeStatus
from tests.support.block_kit import block_kit_problems
from tests.support.harness import ALICE, BOB, GENERAL, SignedSlack, dm_channel


def element_types(blocks: list[dict[str, Any]] | None) -> list[str]:
    return [element["type"] for block in blocks or [] for element in block.get("elements", [])]


async def test_a_streamed_answer_ends_with_feedback_buttons_within_block_kit_limits(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    await slack.mention("rate me")

    [answer] = await slack.answers(1, channel=GENERAL)

    assert "feedback_buttons" in element_types(answer.blocks)
    assert block_kit_problems(answer.blocks) == []


async def test_a_posted_answer_keeps_its_text_and_gets_feedback_buttons(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    fake_slack.streaming_available = False  # a workspace without streaming: post and update
    await slack.dm("rate me too")

    [answer] = await slack.answers(1, channel=dm_channel(ALICE))

    assert answer.text == "Answer: rate me too"
    assert "feedback_buttons" in element_types(answer.blocks)
    shown = [block["text"]["text"] for block in answer.blocks or [] if block["type"] == "section"]
    assert "".join(shown) == "Answer: rate me too"
    assert block_kit_problems(answer.blocks or []) == []


async def test_where_slacks_thumbs_are_refused_plain_buttons_or_none_are_used(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    fake_slack.refused_block_types = {"context_actions"}
    await slack.mention("plain buttons please")
    await slack.dm("plain buttons in the DM too")
    [streamed] = await slack.answers(1, channel=GENERAL)
    [posted] = await slack.answers(1, channel=dm_channel(ALICE))
    assert element_types(streamed.blocks) == ["button", "button"]
    assert element_types(posted.blocks) == ["button", "button"]

    fake_slack.refused_block_types = {"context_actions", "actions"}
    await slack.dm("no buttons at all", user=BOB)
    [bare] = await slack.answers(1, channel=dm_channel(BOB))
    assert bare.text == "Answer: no buttons at all"
    assert element_types(bare.blocks) == []


async def test_the_askers_feedback_click_validates_the_answer_and_others_do_not_count(
    slack: SignedSlack,
) -> None:
    services = slack.services
    answer = await slack.ask_in_dm("click the thumbs")

    response = await slack.click(
        answer, action_id=FEEDBACK_ACTION_ID, value="down", user=BOB, action_type="feedback_buttons"
    )
    assert response.status_code == 200
    await slack.settled()
    assert await services.memory.list_episodes(ALICE) == []

    await slack.click(
        answer, action_id=FEEDBACK_ACTION_ID, value="up", user=ALICE, action_type="feedback_buttons"
    )
    await slack.settled()
    [episode] = await services.memory.list_episodes(ALICE)
    assert episode.status is EpisodeStatus.SUCCESS


async def test_the_home_tab_lists_the_viewers_memories_and_forget_everything_empties_it(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI
) -> None:
    answer = await slack.ask_in_dm("remember this about deployments")
    await slack.vote(answer, user=ALICE, reaction="+1")

    await slack.open_home(user=ALICE)
    await fake_slack.wait_for(lambda: bool(fake_slack.calls_to("views.publish")), what="home")
    [published] = fake_slack.calls_to("views.publish")
    assert published.args["user_id"] == ALICE
    assert "remember this about deployments" in str(published.args["view"])
    assert block_kit_problems(published.args["view"]["blocks"]) == []

    home = fake_slack.add_user_message(dm_channel(ALICE), "home", user=ALICE)
    await slack.click(home, action_id=FORGET_EVERYTHING_ACTION_ID, value="all", user=ALICE)
    await fake_slack.wait_for(
        lambda: len(fake_slack.calls_to("views.publish")) == 2, what="the emptied home"
    )
    await slack.settled()
    emptied = fake_slack.calls_to("views.publish")[1].args["view"]
    assert "remember this about deployments" not in str(emptied)
    services = slack.services
    assert await services.memory.list_episodes(ALICE) == []
