"""The files attached to a person's message: which images the model is shown this turn,
and the one line that tells the person what was not looked at, and why.

Images live only in the turn's memory (:class:`bot.agent.MessageImage`): what the ledger,
and so a validated episode, keeps of an attachment is its file name and type
(:func:`attached_line`), never its bytes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel, Field

from bot.agent.messages import MessageImage
from bot.slack.files import FileTooLarge, FileUnavailable, SlackFile, SlackFileDownloader
from memory.text import shorten

__all__ = [
    "IMAGE_TYPES",
    "Attachments",
    "ImageIntake",
    "NotLookedAt",
    "VisionSettings",
    "attached_line",
    "sniffed_image_type",
]

log = logging.getLogger(__name__)

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""What vision models read (OpenAI, and Ollama's and vLLM's vision models)."""
NAME_CHARS = 60
"""A file name is shortened to this in the person's note and in what is stored."""


class VisionSettings(BaseModel):
    """``LLM_VISION``, ``LLM_MAX_IMAGES`` and ``LLM_MAX_IMAGE_BYTES``."""

    enabled: bool = False
    max_images: int = Field(default=4, ge=1)
    max_image_bytes: int = Field(default=5_000_000, ge=1)


class NotLookedAt(StrEnum):
    """Why an attached file was not shown to the model."""

    NOT_AN_IMAGE = "not a PNG, JPEG, GIF or WebP image"
    VISION_OFF = "this bot's model does not read images"
    TOO_MANY = "only the first {max_images} images of a message are looked at"
    TOO_LARGE = "larger than {limit}"
    UNAVAILABLE = "I could not download it from Slack"


def sniffed_image_type(data: bytes) -> str | None:
    """The image type the bytes themselves say (their signature), or None.

    Slack answers a download it refuses (a token without ``files:read``) with an HTML page
    and a 200, and a file's declared type is what its uploader's client said: the bytes
    are what the model would be sent, so they decide."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _display_name(file: SlackFile) -> str:
    """The file's name for a Slack message, shortened, with Slack's control characters
    escaped (a name such as ``<!channel>.png`` must not notify anyone)."""
    name = shorten(file.name, NAME_CHARS) or "a file"
    return name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def attached_line(files: list[SlackFile]) -> str:
    """What the question records of its attachments: their names and types, no content."""
    if not files:
        return ""
    listed = ", ".join(
        f"{_display_name(file)} ({file.mimetype or 'unknown type'})" for file in files
    )
    return f"[Attached: {listed}]"


@dataclass(frozen=True)
class Attachments:
    """What one message's attachments gave the turn: images for the model, and the files
    it was not shown with why."""

    images: list[MessageImage] = field(default_factory=list)
    skipped: list[tuple[SlackFile, str]] = field(default_factory=list)

    def note_for_person(self) -> str:
        """One short line, shown above the answer, or empty when everything was seen."""
        if not self.skipped:
            return ""
        reasons = "; ".join(f"{_display_name(file)} ({why})" for file, why in self.skipped)
        alone = "" if self.images else ", so I answered from your text alone"
        return f"_I did not look at {reasons}{alone}._\n\n"

    def note_for_model(self) -> str:
        """Appended to the text the model reads, so it does not answer as if it saw them."""
        if not self.skipped:
            return ""
        names = ", ".join(_display_name(file) for file, _ in self.skipped)
        return f"\n[Attached, but not shown to you: {names}]"


def _size(limit: int) -> str:
    if limit >= 1_000_000:
        return f"{limit / 1_000_000:g} MB"
    if limit >= 1_000:
        return f"{limit / 1_000:g} KB"
    return f"{limit} bytes"


class ImageIntake:
    """Turns a message's files into the images of its turn, within the settings."""

    def __init__(
        self, settings: VisionSettings, downloader: SlackFileDownloader | None = None
    ) -> None:
        self._settings = settings
        self._downloader = downloader

    async def take(self, files: list[SlackFile], *, token: str) -> Attachments:
        """Download what the model may see with the bot ``token`` of the message's
        workspace; never raises (a failed download is a note)."""
        settings = self._settings
        wanted: dict[int, SlackFile] = {}
        skipped: dict[int, str] = {}
        for position, file in enumerate(files):
            if file.mimetype.lower() not in IMAGE_TYPES | {"image/jpg"}:
                skipped[position] = NotLookedAt.NOT_AN_IMAGE.value
            elif not settings.enabled or self._downloader is None:
                skipped[position] = NotLookedAt.VISION_OFF.value
            elif len(wanted) >= settings.max_images:
                skipped[position] = NotLookedAt.TOO_MANY.format(max_images=settings.max_images)
            else:
                wanted[position] = file
        images: list[MessageImage] = []
        if wanted and self._downloader is not None:
            outcomes = await self._downloader.download_all(
                list(wanted.values()), token=token, max_bytes=settings.max_image_bytes
            )
            for position, outcome in zip(wanted, outcomes, strict=True):
                image = self._image(outcome)
                if isinstance(image, MessageImage):
                    images.append(image)
                else:
                    skipped[position] = image
        return Attachments(
            images=images, skipped=[(files[p], why) for p, why in sorted(skipped.items())]
        )

    def _image(self, outcome: bytes | FileUnavailable | FileTooLarge) -> MessageImage | str:
        """The downloaded image, or why there is none."""
        if isinstance(outcome, FileTooLarge):
            return NotLookedAt.TOO_LARGE.format(limit=_size(self._settings.max_image_bytes))
        if isinstance(outcome, FileUnavailable):
            return NotLookedAt.UNAVAILABLE.value
        mime = sniffed_image_type(outcome)
        if mime is None:
            log.warning(
                "an attached image downloaded as something else: does the bot token "
                "have the files:read scope?"
            )
            return NotLookedAt.UNAVAILABLE.value
        return MessageImage(mime=mime, data=outcome)
