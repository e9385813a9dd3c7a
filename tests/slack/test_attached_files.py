"""Attached files: read from the event, downloaded from the fake Slack with the bot token,
and turned into a turn's images within the limits, or into the reason they are not."""

from __future__ import annotations

import logging

import httpx
import pytest

from bot.answering.attachments import (
    ImageIntake,
    VisionSettings,
    attached_line,
    sniffed_image_type,
)
from bot.simulator.slack_web_api import FakeSlackWebAPI
from bot.slack.files import SlackFile, SlackFileDownloader, files_of

PNG = b"\x89PNG\r\n\x1a\n" + b"pixels" * 50
VISION = VisionSettings(enabled=True, max_images=4, max_image_bytes=1000)


def downloader(fake_slack: FakeSlackWebAPI) -> SlackFileDownloader:
    return SlackFileDownloader(api_url=fake_slack.base_url, timeout_seconds=1.0)


def uploaded(
    fake_slack: FakeSlackWebAPI, name: str, data: bytes, mimetype: str = "image/png"
) -> SlackFile:
    return SlackFile.model_validate(fake_slack.add_file(name, data, mimetype=mimetype))


async def test_an_image_is_downloaded_with_the_bot_token(fake_slack: FakeSlackWebAPI) -> None:
    file = uploaded(fake_slack, "shot.png", PNG)

    taken = await ImageIntake(VISION, downloader(fake_slack)).take([file], token=fake_slack.token)

    assert [(image.mime, image.data) for image in taken.images] == [("image/png", PNG)]
    assert taken.note_for_person() == "" and taken.note_for_model() == ""
    assert fake_slack.file_downloads == [file.id]


async def test_a_revoked_token_gets_the_sign_in_page_which_is_not_shown_as_an_image(
    fake_slack: FakeSlackWebAPI, caplog: pytest.LogCaptureFixture
) -> None:
    file = uploaded(fake_slack, "shot.png", PNG)

    with caplog.at_level(logging.INFO):
        taken = await ImageIntake(VISION, downloader(fake_slack)).take([file], token="xoxb-revoked")

    assert taken.images == []
    assert taken.skipped == [(file, "I could not download it from Slack")]
    ours = " ".join(r.getMessage() for r in caplog.records if r.name.startswith("bot."))
    assert "files:read" in ours
    assert "shot.png" not in ours and "xoxb-revoked" not in ours


async def test_the_declared_type_does_not_decide_what_the_model_is_sent(
    fake_slack: FakeSlackWebAPI,
) -> None:
    """A ``.png`` whose bytes are JPEG goes as JPEG; one whose bytes are no image, not at all."""
    jpeg = b"\xff\xd8\xff\xe0" + b"jfif" * 20
    files = [
        uploaded(fake_slack, "really.png", jpeg),
        uploaded(fake_slack, "fake.png", b"<html>no</html>"),
    ]

    taken = await ImageIntake(VISION, downloader(fake_slack)).take(files, token=fake_slack.token)

    assert [(image.mime, image.data) for image in taken.images] == [("image/jpeg", jpeg)]
    assert taken.skipped == [(files[1], "I could not download it from Slack")]


async def test_the_bot_token_goes_to_slack_s_file_host_and_nowhere_else() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=PNG)

    files = SlackFileDownloader(
        api_url="https://slack.com/api/",
        timeout_seconds=1.0,
        transport=httpx.MockTransport(answer),
    )
    elsewhere = SlackFile(name="x.png", mimetype="image/png", url_private="https://evil.test/x.png")
    plain = SlackFile(name="y.png", mimetype="image/png", url_private="http://files.slack.com/y")
    slack = SlackFile(
        name="z.png",
        mimetype="image/png",
        url_private="https://files.slack.com/files-pri/T-F/z.png",
    )

    outcomes = await files.download_all(
        [elsewhere, plain, slack], token="xoxb-real", max_bytes=1000
    )

    assert [type(outcome).__name__ for outcome in outcomes[:2]] == ["FileUnavailable"] * 2
    assert outcomes[2] == PNG
    assert [str(request.url) for request in seen] == [slack.url_private]
    assert seen[0].headers["Authorization"] == "Bearer xoxb-real"


async def test_a_download_is_cut_off_past_the_limit_whatever_the_file_claimed(
    fake_slack: FakeSlackWebAPI,
) -> None:
    entry = fake_slack.add_file("big.png", PNG * 10, mimetype="image/png", size=10)

    taken = await ImageIntake(VISION, downloader(fake_slack)).take(
        [SlackFile.model_validate(entry)], token=fake_slack.token
    )

    assert taken.images == []
    assert taken.note_for_person() == (
        "_I did not look at big.png (larger than 1 KB), so I answered from your text alone._\n\n"
    )


async def test_a_missing_file_and_a_slow_one_are_told_as_not_downloaded(
    fake_slack: FakeSlackWebAPI,
) -> None:
    gone = SlackFile.model_validate(
        fake_slack.add_file("gone.png", PNG, mimetype="image/png", status=404)
    )
    slow = SlackFile.model_validate(
        fake_slack.add_file("slow.png", PNG, mimetype="image/png", delay_seconds=30)
    )
    seen = uploaded(fake_slack, "fine.png", PNG)

    taken = await ImageIntake(VISION, downloader(fake_slack)).take(
        [gone, slow, seen], token=fake_slack.token
    )

    assert [image.data for image in taken.images] == [PNG]
    assert taken.note_for_person() == (
        "_I did not look at gone.png (I could not download it from Slack); "
        "slow.png (I could not download it from Slack)._\n\n"
    )
    assert taken.note_for_model() == "\n[Attached, but not shown to you: gone.png, slow.png]"


async def test_without_vision_or_a_downloader_nothing_is_fetched(
    fake_slack: FakeSlackWebAPI,
) -> None:
    file = uploaded(fake_slack, "shot.png", PNG)

    off = await ImageIntake(VisionSettings(), downloader(fake_slack)).take(
        [file], token=fake_slack.token
    )
    unwired = await ImageIntake(VISION).take([file], token=fake_slack.token)

    for taken in (off, unwired):
        assert taken.skipped == [(file, "this bot's model does not read images")]
    assert fake_slack.file_downloads == []


def test_names_in_notes_are_shortened_and_cannot_notify_anyone() -> None:
    file = SlackFile(name="<!channel> & <@U1>.pdf", mimetype="application/pdf")
    long = SlackFile(name="x" * 200 + ".png", mimetype="image/png")

    assert (
        attached_line([file])
        == "[Attached: &lt;!channel&gt; &amp; &lt;@U1&gt;.pdf (application/pdf)]"
    )
    assert len(attached_line([long])) < 100
    assert attached_line([]) == ""


def test_event_files_are_read_leniently() -> None:
    event = {
        "files": [
            {"id": "F1", "name": "a.png", "mimetype": "image/png", "size": 10, "url_private": "u"},
            {"id": "F2", "mode": "hidden_by_limit"},
            {"id": ["not", "a", "string"]},
            "not an object",
        ]
    }

    files = files_of(event)

    assert [(file.id, file.url_private) for file in files] == [
        ("F1", "u"),
        ("F2", None),
        ("", None),
        ("", None),
    ]
    assert files_of({"files": "nope"}) == [] and files_of({}) == []


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (b"\x89PNG\r\n\x1a\n...", "image/png"),
        (b"\xff\xd8\xff\xdb...", "image/jpeg"),
        (b"GIF87a...", "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"<!DOCTYPE html>", None),
        (b"", None),
    ],
)
def test_image_types_are_told_by_their_signature(data: bytes, mime: str | None) -> None:
    assert sniffed_image_type(data) == mime
