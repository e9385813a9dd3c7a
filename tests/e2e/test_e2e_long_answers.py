"""Long answers are split at Slack's limits, code blocks intact, every part in the ledger."""

from __future__ import annotations

import json

import pytest

from bot.simulator import FakeLLMServer, ScriptedReply
from bot.simulator.slack_web_api import MARKDOWN_CHUNK_LIMIT, FakeMessage, FakeSlackWebAPI
from bot.slack.splitting import PART_LIMIT
from memory import EpisodeStatus
from tests.support.block_kit import block_kit_problems
from tests.support.harness import ALICE, GENERAL, SignedSlack, dm_channel


def long_answer() -> str:
    intro = "\n\n".join(f"Paragraph {n}: " + "some explanation " * 12 for n in range(8))
    code = "\n".join(f"    result_{n} = compute({n}, retries=3)  # step {n}" for n in range(160))
    outro = "\n".join(f"- point {n}: " + "detail " * 8 for n in range(40))
    return f"{intro}\n\n```python\ndef main():\n{code}\n```\n\n{outro}"


def content_lines(text: str) -> list[str]:
    return [
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("```")
    ]


def assert_split_well(parts: list[FakeMessage], original: str) -> None:
    assert len(parts) >= 3
    for part in parts:
        assert len(part.text) <= PART_LIMIT
        assert part.text.count("```") % 2 == 0, "a code block is left open in one part"
    assert any(part.text.startswith("```python\n") for part in parts[1:]), "code not reopened"
    joined = "\n".join(part.text for part in parts)
    assert content_lines(joined) == content_lines(original)


def assert_within_slack_limits(fake: FakeSlackWebAPI) -> None:
    for call in fake.calls:
        if call.method in ("chat.postMessage", "chat.update"):
            assert len(call.args.get("text", "")) <= PART_LIMIT
        chunks = call.args.get("chunks") or []
        if isinstance(chunks, str):
            chunks = json.loads(chunks)
        streamed = str(call.args.get("markdown_text") or "") + "".join(
            chunk.get("text", "") for chunk in chunks
        )
        assert len(streamed) <= MARKDOWN_CHUNK_LIMIT
        blocks = call.args.get("blocks")
        if blocks:
            blocks = json.loads(blocks) if isinstance(blocks, str) else blocks
            assert block_kit_problems(blocks) == []
            for block in blocks:
                if block["type"] == "section":
                    assert block["text"]["text"].count("```") % 2 == 0, "a section breaks code"


@pytest.mark.parametrize("where", ["dm", "thread", "posted"])
async def test_a_long_answer_is_split_with_code_blocks_intact_and_fully_recorded(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, where: str
) -> None:
    original = long_answer()
    assert len(original) > 2 * PART_LIMIT
    fake_llm.script(ScriptedReply.answer(original, piece_size=40))
    fake_slack.streaming_available = where != "posted"  # posted: a workspace without streams

    if where in ("dm", "posted"):
        await slack.dm("show me the whole program")
        channel = dm_channel(ALICE)
    else:
        await slack.mention("show me the whole program")
        channel = GENERAL
    await fake_slack.wait_for(
        lambda: not fake_llm.pending_replies and bool(fake_slack.final_messages(channel)),
        what="the long answer",
    )
    await slack.settled()

    parts = fake_slack.final_messages(channel)
    assert_split_well(parts, original)
    assert_within_slack_limits(fake_slack)
    streamed_parts = len(fake_slack.calls_to("chat.stopStream"))
    assert streamed_parts == (0 if where == "posted" else len(parts))
    services = slack.services
    for part in parts:  # every part is in the ledger: a 👍 on any of them validates
        await slack.vote(part, user=ALICE, reaction="+1")
    [episode] = await services.memory.list_episodes(ALICE)
    assert episode.status is EpisodeStatus.SUCCESS
    assert content_lines(episode.answer) == content_lines(original)
