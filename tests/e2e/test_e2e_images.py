"""Screenshots in questions: a person's attached images reach a vision model, and nothing of
them stays.

The real bot over HTTP with signed events, against the fake Slack (which serves each file
at its ``url_private`` to the bot token only) and the fake model (which decodes the image
parts it was sent). ``LLM_VISION`` is on unless a test says otherwise, with limits small
enough to cross: two images a message, 4 KB an image, a one-second download.
"""

from __future__ import annotations

import asyncio
import base64
import os
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.config import Settings
from bot.server import EVENTS_PATH
from bot.simulator import FakeLLMServer
from bot.simulator.slack_people import SlackPeople
from bot.simulator.slack_web_api import FakeSlackWebAPI
from memory import MemoryConfig, open_store
from tests.support.harness import ALICE, GENERAL, SignedSlack, dm_channel, start_bot
from tests.support.oauth import install, oauth_settings, workspace_slack
from tests.support.process import fakes_env, local_url, run_bot, wait_until_healthy

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_SIGNATURE = b"\xff\xd8\xff\xe0"
MAX_IMAGE_BYTES = 4000


def screenshot(marker: str, *, signature: bytes = PNG_SIGNATURE, size: int = 1500) -> bytes:
    """Image bytes nobody else has: a real signature, a marker, then random bytes."""
    head = signature + marker.encode()
    return head + os.urandom(size - len(head))


@pytest.fixture
def vision() -> bool:
    return True


@pytest.fixture
def settings(settings: Settings, vision: bool) -> Settings:
    return settings.model_copy(
        update={
            "llm_vision": vision,
            "llm_max_images": 2,
            "llm_max_image_bytes": MAX_IMAGE_BYTES,
            "image_download_timeout_seconds": 1.0,
        }
    )


def attach(
    fake: FakeSlackWebAPI, name: str, data: bytes, mimetype: str = "image/png", **options: Any
) -> dict[str, Any]:
    return fake.add_file(name, data, mimetype=mimetype, **options)


async def test_a_dm_with_one_screenshot_shows_it_to_the_model_beside_the_text(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    image = screenshot("dm-screenshot")
    shot = attach(fake_slack, "error.png", image)

    await slack.dm("What does this error mean?", files=[shot])
    [answer] = await slack.answers(1, channel=dm_channel(ALICE))

    request = fake_llm.request_for("[Attached: error.png (image/png)]", agent_only=True)
    last_user = [m for m in request["messages"] if m["role"] == "user"][-1]
    assert last_user["content"][0] == {
        "type": "text",
        "text": "What does this error mean?\n[Attached: error.png (image/png)]",
    }
    encoded = base64.b64encode(image).decode()
    assert last_user["content"][1:] == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}"}}
    ]
    assert [(seen.mime, seen.data) for seen in fake_llm.images_for("(image/png)]")] == [
        ("image/png", image)
    ]
    assert fake_slack.file_downloads == [shot["id"]]
    assert "did not look" not in answer.text


async def test_a_mention_in_a_thread_with_two_images_shows_both_in_order(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    first = await slack.ask_in_channel("our deploy is red")
    root = first.thread_ts
    assert root is not None
    before, after = screenshot("before"), screenshot("after", signature=JPEG_SIGNATURE)
    files = [
        attach(fake_slack, "before.png", before),
        attach(fake_slack, "after.jpg", after, "image/jpeg"),
    ]

    await slack.mention("which of these is the failing step?", thread_ts=root, files=files)
    answers = await slack.answers(2, channel=GENERAL)

    assert len(answers) == 2, "the message and app_mention events are answered once"
    assert answers[1].thread_ts == root
    received = fake_llm.images_for("after.jpg (image/jpeg)]")
    assert [(seen.mime, seen.data) for seen in received] == [
        ("image/png", before),
        ("image/jpeg", after),
    ]
    assert "did not look" not in answers[1].text


async def test_a_mention_slack_sends_only_as_a_file_share_message_is_answered_with_its_image(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    """Slack may send a mention with a file only as a ``message`` event of subtype
    ``file_share``, without ``app_mention`` (slackapi/bolt-python#925)."""
    image = screenshot("file-share-only")
    text = f"<@{fake_slack.bot_user_id}> is this alert real?"
    shot = attach(fake_slack, "alert.png", image)
    message = fake_slack.add_user_message(GENERAL, text, user=ALICE, files=[shot])

    event = slack.message_event(message, channel_type="channel")
    assert event["subtype"] == "file_share" and event["files"] == [shot]
    await slack.send_event(event)
    [answer] = await slack.answers(1, channel=GENERAL)

    assert answer.thread_ts == message.ts
    assert [seen.data for seen in fake_llm.images_for("alert.png (image/png)]")] == [image]


async def test_in_oauth_mode_an_image_is_downloaded_with_its_workspace_s_token(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer, http: httpx.AsyncClient
) -> None:
    """The app has no token of its own: a download with anything but the installation's
    token would get Slack's sign-in page, and the model no image."""
    settings = oauth_settings(
        fake_slack, fake_llm, database=str(tmp_path / "bot.db"), llm_vision=True
    )
    server = await start_bot(settings)
    try:
        workspace = await install(http, server, fake_slack, "T0000ONE", installer=ALICE)
        image = screenshot("installed-workspace")
        shot = attach(fake_slack, "install.png", image)

        answer = await workspace_slack(server, workspace, http).ask_in_dm(
            "why did the install fail?", files=[shot]
        )
    finally:
        await server.stop()

    assert "did not look" not in answer.text
    assert [seen.data for seen in fake_llm.images_for("install.png (image/png)]")] == [image]


async def test_an_oversized_image_is_not_downloaded_and_the_answer_says_so(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    huge = attach(fake_slack, "huge.png", screenshot("huge", size=MAX_IMAGE_BYTES + 1))

    answer = await slack.ask_in_dm("see the attached dump", files=[huge])

    assert answer.text.startswith(
        "_I did not look at huge.png (larger than 4 KB), so I answered from your text alone._"
    )
    assert fake_slack.file_downloads == []
    assert fake_llm.images == []
    assert "[Attached, but not shown to you: huge.png]" in fake_llm.prompt_for("huge.png]")


async def test_an_image_larger_than_it_claims_is_cut_off_while_downloading(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    liar = attach(fake_slack, "liar.png", screenshot("liar", size=3 * MAX_IMAGE_BYTES), size=10)

    answer = await slack.ask_in_dm("and this one?", files=[liar])

    assert "liar.png (larger than 4 KB)" in answer.text
    assert fake_llm.images == []


async def test_a_file_that_is_not_an_image_is_named_and_the_image_beside_it_is_seen(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    image = screenshot("beside-a-pdf")
    files = [
        attach(fake_slack, "report.pdf", b"%PDF-1.7 quarterly numbers", "application/pdf"),
        attach(fake_slack, "chart.png", image),
    ]

    answer = await slack.ask_in_dm("summarise these", files=files)

    assert answer.text.startswith(
        "_I did not look at report.pdf (not a PNG, JPEG, GIF or WebP image)._\n"
    )
    assert [seen.data for seen in fake_llm.images] == [image]
    assert fake_slack.file_downloads == [files[1]["id"]]


async def test_a_third_image_is_over_the_count_and_is_said_so(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    files = [attach(fake_slack, f"step{n}.png", screenshot(f"step{n}")) for n in range(1, 4)]

    answer = await slack.ask_in_dm("three steps", files=files)

    assert "step3.png (only the first 2 images of a message are looked at)" in answer.text
    assert len(fake_llm.images) == 2
    assert fake_slack.file_downloads == [files[0]["id"], files[1]["id"]]


@pytest.mark.parametrize("vision", [False])
async def test_with_vision_off_nothing_is_downloaded_and_the_answer_says_why(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    shot = attach(fake_slack, "error.png", screenshot("vision-off"))

    answer = await slack.ask_in_dm("what is wrong here?", files=[shot])

    assert answer.text.startswith(
        "_I did not look at error.png (this bot's model does not read images), "
        "so I answered from your text alone._\n\nAnswer: what is wrong here?"
    )
    assert fake_slack.file_downloads == []
    request = fake_llm.request_for("[Attached, but not shown to you: error.png]")
    assert all(isinstance(m.get("content"), str) for m in request["messages"])


async def test_a_failed_or_slow_download_never_blocks_the_answer(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    files = [
        attach(fake_slack, "gone.png", screenshot("gone"), status=404),
        attach(fake_slack, "slow.png", screenshot("slow"), delay_seconds=30),
    ]

    answer = await slack.ask_in_dm("why does the build hang?", files=files)

    assert answer.text.startswith(
        "_I did not look at gone.png (I could not download it from Slack); "
        "slow.png (I could not download it from Slack), so I answered from your text alone._"
    )
    assert "Answer: why does the build hang?" in answer.text
    assert fake_llm.images == []
    assert sorted(fake_slack.file_downloads) == sorted(file["id"] for file in files)


async def test_a_validated_exchange_keeps_the_text_and_the_file_name_not_the_image(
    slack: SignedSlack, fake_slack: FakeSlackWebAPI, db_file: Path
) -> None:
    image = screenshot("validated")
    answer = await slack.ask_in_dm(
        "is this graph fine?", files=[attach(fake_slack, "graph.png", image)]
    )
    await slack.vote(answer)

    store = await open_store(str(db_file), MemoryConfig())
    try:
        exported = await store.export_user(ALICE)
    finally:
        await store.close()
    [episode] = exported.episodes
    assert episode.question == "is this graph fine?\n[Attached: graph.png (image/png)]"
    assert episode.status.value == "success"


def traces_of(image: bytes) -> list[bytes]:
    """What would show that ``image`` was written: its bytes, its base64 (a data URL), and
    a stretch of its base64 at each of the three alignments a longer text could give it."""
    encoded = base64.b64encode(image)
    traces = [image, image[len(PNG_SIGNATURE) : len(PNG_SIGNATURE) + 32], encoded]
    for shift in range(3):
        traces.append(base64.b64encode(image[shift + 300 : shift + 348]))
    return traces


def database_bytes(db: Path) -> bytes:
    paths = [db, db.with_name(f"{db.name}-wal"), db.with_name(f"{db.name}-shm")]
    return b"".join(path.read_bytes() for path in paths if path.exists())


async def test_the_image_reaches_the_model_and_never_the_database_or_the_log(
    tmp_path: Path, fake_slack: FakeSlackWebAPI, fake_llm: FakeLLMServer
) -> None:
    """``python -m bot`` at DEBUG: a screenshot in a DM (validated by 👍) and one in a
    mention; the database files are searched while it runs, after ``/forget`` and after it
    stopped, and the log at the end."""
    db, log_file = tmp_path / "bot.db", tmp_path / "bot.log"
    env = fakes_env(fake_slack, fake_llm, db=db, LLM_VISION="true", LOG_LEVEL="DEBUG")
    images = [screenshot("never-stored-dm", size=3000), screenshot("never-stored-mention")]
    shots = [
        attach(fake_slack, "quokka-screen.png", images[0]),
        attach(fake_slack, "quokka-graph.png", images[1]),
    ]
    process = await run_bot(env=env, cwd=tmp_path, log_file=log_file)
    try:
        url = local_url(env)
        await wait_until_healthy(url, process)
        async with httpx.AsyncClient(timeout=10.0) as http:
            people = SlackPeople(f"{url}{EVENTS_PATH}", fake_slack, http)
            await people.dm("what is on my marmoset screen?", files=[shots[0]])
            [answer] = await fake_slack.wait_for_final_messages(1, channel=dm_channel(ALICE))
            await people.react(answer, reaction="+1")  # a 200 means the vote is stored
            await people.mention("and the marmoset graph?", files=[shots[1]])
            await fake_slack.wait_for_final_messages(1, channel=GENERAL)
            assert [seen.data for seen in fake_llm.images] == images

            while_running = database_bytes(db)
            assert b"what is on my marmoset screen?" in while_running  # the search sees text
            assert b"quokka-screen.png (image/png)" in while_running  # name and type only
            for trace in (t for image in images for t in traces_of(image)):
                assert trace not in while_running

            assert (await people.command("/forget")).status_code == 200
            after_forget = database_bytes(db)
            assert b"marmoset" not in after_forget and b"quokka" not in after_forget
            for trace in (t for image in images for t in traces_of(image)):
                assert trace not in after_forget
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 30)
        assert process.returncode == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()

    stopped = database_bytes(db)
    log = log_file.read_bytes()
    assert b"kind=answer" in log and b"kind=vote" in log and b"kind=forget" in log
    for trace in (t for image in images for t in traces_of(image)):
        assert trace not in stopped
        assert trace not in log
    for said in (b"marmoset", b"quokka", b"never-stored"):
        assert said not in log
