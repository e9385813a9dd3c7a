"""The files a person attached to a message: read from the event, downloaded with the bot
token (``url_private``, which needs the ``files:read`` scope).

Nothing here logs a file's name, URL or bytes: a failure is logged by its HTTP status or
exception class only."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = [
    "FILES_PER_MESSAGE",
    "FileTooLarge",
    "FileUnavailable",
    "SlackFile",
    "SlackFileDownloader",
    "files_of",
]

log = logging.getLogger(__name__)

FILES_PER_MESSAGE = 20
"""At most this many of an event's files are looked at (Slack attaches up to 10)."""
SLACK_FILE_HOSTS = frozenset({"files.slack.com", "files.slack-gov.com"})
"""Where Slack serves ``url_private``: the bot token is sent nowhere else (but to the origin
of ``SLACK_API_URL``, a local stand-in in tests)."""


class SlackFile(BaseModel):
    """One entry of a message event's ``files``, as far as the bot reads it."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str = ""
    name: str = ""
    mimetype: str = ""
    size: int | None = None
    url_private: str | None = None
    """Absent for a file the bot may not see (deleted, over the workspace's limit...)."""


def files_of(event: dict[str, Any]) -> list[SlackFile]:
    """The files attached to a ``message`` or ``app_mention`` event; an entry that is not as
    Slack documents it becomes a file without a URL (told as not downloadable)."""
    listed = event.get("files")
    if not isinstance(listed, list):
        return []
    files = []
    for entry in listed[:FILES_PER_MESSAGE]:
        try:
            files.append(SlackFile.model_validate(entry))
        except ValidationError:
            files.append(SlackFile())
    return files


class FileUnavailable(Exception):
    """The file could not be downloaded: no URL, a refused URL, an HTTP error, a timeout."""


class FileTooLarge(Exception):
    """The file is larger than the limit it was downloaded with."""


class SlackFileDownloader:
    """Downloads ``url_private`` files with a bot token (the workspace's, in OAuth mode),
    each within ``timeout_seconds`` and stopping as soon as a file passes its size limit."""

    def __init__(
        self,
        *,
        api_url: str,
        timeout_seconds: float,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        api = urlsplit(api_url)
        self._api_origin = (api.scheme, api.netloc)
        self._timeout = timeout_seconds
        self._transport = transport

    def _allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        if (parts.scheme, parts.netloc) == self._api_origin:
            return True
        return parts.scheme == "https" and parts.hostname in SLACK_FILE_HOSTS

    async def download_all(
        self, files: list[SlackFile], *, token: str, max_bytes: int
    ) -> list[bytes | FileUnavailable | FileTooLarge]:
        """Each file's bytes, or why it has none; concurrently, never raising."""
        async with httpx.AsyncClient(
            timeout=self._timeout,
            follow_redirects=False,
            headers={"Authorization": f"Bearer {token}"},
            transport=self._transport,
        ) as http:
            return list(
                await asyncio.gather(*(self._outcome(http, file, max_bytes) for file in files))
            )

    async def _outcome(
        self, http: httpx.AsyncClient, file: SlackFile, max_bytes: int
    ) -> bytes | FileUnavailable | FileTooLarge:
        try:
            async with asyncio.timeout(self._timeout):
                return await self._download(http, file, max_bytes)
        except (FileUnavailable, FileTooLarge) as refused:
            return refused
        except (TimeoutError, httpx.HTTPError) as error:
            log.info("an attached file could not be downloaded (%s)", type(error).__name__)
            return FileUnavailable(type(error).__name__)

    async def _download(self, http: httpx.AsyncClient, file: SlackFile, max_bytes: int) -> bytes:
        if file.size is not None and file.size > max_bytes:
            raise FileTooLarge
        if not file.url_private or not self._allowed(file.url_private):
            log.info("an attached file has no URL the bot may download from")
            raise FileUnavailable("no url")
        async with http.stream("GET", file.url_private) as response:
            if response.status_code != 200:
                log.info("an attached file could not be downloaded (HTTP %d)", response.status_code)
                raise FileUnavailable(f"HTTP {response.status_code}")
            received = bytearray()
            async for chunk in response.aiter_bytes():
                received += chunk
                if len(received) > max_bytes:
                    raise FileTooLarge
            return bytes(received)
