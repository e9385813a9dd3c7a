"""Showing an answer in Slack while it is being generated.

Two ways of replying, behind one small interface (:class:`Reply`):

* :class:`StreamingReply` uses the SDK's chat streaming API (``client.chat_stream`` ->
  chat.startStream / appendStream / stopStream) for replies in a thread, which is every
  answer (a DM is answered in the thread under it, as the agent experience shows it). It
  first titles a new conversation (assistant.threads.setTitle) and shows a thinking status
  with rotating loading messages (assistant.threads.setStatus); tool calls show as
  ``task_update`` chunks. A part that reaches :data:`~bot.slack.splitting.PART_LIMIT` is
  stopped (closing an open code block) and the rest continues in a new streamed message.
* :class:`PostedReply` posts a "thinking" placeholder and edits it (chat.postMessage then
  chat.update), for a reply outside a thread and whenever Slack refuses to stream
  (``unknown_method``, ``not_allowed``...) or ends a stream that stayed open too long
  (``message_not_in_streaming_state``): :class:`StreamingReply` switches to it by itself,
  and the streamed message is completed with chat.update, so nothing shown is lost.

Both return the ts of every message part, so the exchange can be recorded in the ledger,
and tell ``on_shown`` each part's ts the moment Slack shows its text, so a part is votable
while the rest of the answer is still being written.
``finish(footers)`` puts blocks (the feedback buttons) under the last part: the first of
the alternatives Slack accepts, or none when it refuses them all.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.models.messages.chunk import TaskUpdateChunk
from slack_sdk.web.async_chat_stream import AsyncChatStream
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.splitting import PART_LIMIT, find_split, open_fence_at, split_message
from bot.views.limits import SECTION_TEXT_LIMIT

__all__ = [
    "BLOCKS_REFUSED",
    "LOADING_MESSAGES",
    "THINKING_PLACEHOLDER",
    "THINKING_STATUS",
    "TITLE_LIMIT",
    "OnShown",
    "PostedReply",
    "Reply",
    "ReplyTarget",
    "StreamingReply",
    "TaskUpdate",
    "answer_blocks",
    "in_line",
    "open_reply",
]

log = logging.getLogger(__name__)

THINKING_STATUS = "is thinking…"
LOADING_MESSAGES = (
    "Looking for what worked for you before…",
    "Checking the lessons from your 👎s…",
    "Thinking it through…",
    "Writing it down…",
)
"""Rotated under the thinking status while the answer is prepared (Slack takes up to 10)."""
TITLE_LIMIT = 80
"""A conversation's title is its first question, on one line, cut to this length."""
THINKING_PLACEHOLDER = "_Thinking…_"


def in_line(ahead: int) -> str:
    """Where a question waiting for its turn stands: shown as its thinking status."""
    if ahead == 0:
        return "is next in line…"
    return f"is in line: {ahead} question{'s' if ahead != 1 else ''} ahead of yours…"


HOLD_BACK = 600
"""Near the end of a part, text is held back so the part can be cut at a line break."""
BLOCKS_REFUSED = frozenset({"invalid_blocks", "invalid_blocks_format"})
"""Slack's errors for blocks it does not accept: try the next footer, then none."""

Footers = Sequence[list[dict[str, Any]]]
"""Alternative blocks for under an answer, in order of preference."""


def _refused_blocks(error: SlackApiError, footer: list[dict[str, Any]] | None) -> bool:
    """Whether to retry without ``footer``: Slack refused blocks, and there were some."""
    if footer is None or error.response.get("error") not in BLOCKS_REFUSED:
        return False
    log.info("Slack refused the footer blocks (%s); trying the next", error.response["error"])
    return True


def answer_blocks(text: str, footer: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A posted part as blocks (which Slack shows instead of ``text``): mrkdwn sections
    split like messages are, so no code block straddles two sections, then ``footer``."""
    sections = [
        {"type": "section", "text": {"type": "mrkdwn", "text": piece}}
        for piece in split_message(text, SECTION_TEXT_LIMIT)
        if piece.strip()
    ]
    return [*sections, *footer]


class ReplyTarget(BaseModel):
    """Where an answer goes and whom it is for."""

    channel_id: str
    thread_ts: str | None
    team_id: str
    user_id: str
    title: str | None = None
    """The title of the conversation this answer starts (a new DM thread), if it starts one."""


class TaskUpdate(BaseModel):
    """A step of the answer (a tool call) as Slack shows it: a ``task_update`` chunk."""

    id: str
    title: str
    status: Literal["pending", "in_progress", "complete", "error"]


OnShown = Callable[[str], Awaitable[None]]
"""Told the ts of a message part once, as soon as Slack shows it with text."""


class Reply(ABC):
    """An answer being shown: ``begin``, ``write`` pieces, then ``finish`` (or ``fail``)."""

    def __init__(self, *, on_shown: OnShown | None = None) -> None:
        self._on_shown = on_shown
        self._shown_parts: set[str] = set()

    async def _shown(self, ts: str | None) -> None:
        """A part's text is on screen: tell ``on_shown``, once per part."""
        if ts is None or ts in self._shown_parts:
            return
        self._shown_parts.add(ts)
        if self._on_shown is not None:
            await self._on_shown(ts)

    @abstractmethod
    async def wait(self, ahead: int) -> None:
        """Show that the question waits for its turn, ``ahead`` others before it."""

    @abstractmethod
    async def begin(self) -> None:
        """Show that the bot is thinking."""

    @abstractmethod
    async def write(self, text: str) -> None:
        """Append generated text to what the person sees."""

    @abstractmethod
    async def finish(self, footers: Footers = ()) -> list[str]:
        """Complete the answer, with the first of ``footers`` Slack accepts under its last
        part; return the ts of every message part, in order."""

    @property
    @abstractmethod
    def text(self) -> str:
        """Everything written so far."""

    @abstractmethod
    async def task(self, update: TaskUpdate) -> None:
        """Show the progress of a step (a tool call), where the reply can."""

    async def fail(self, notice: str) -> None:
        """End with a short notice instead of (or after) an answer; nothing is recorded."""
        await self.write(f"\n\n{notice}" if self.text.strip() else notice)
        await self.finish()


class PostedReply(Reply):
    """A placeholder message edited as text arrives; long answers continue in new messages."""

    def __init__(
        self,
        client: AsyncWebClient,
        target: ReplyTarget,
        *,
        placeholder_ts: str | None = None,
        text: str = "",
        update_interval: float = 1.5,
        part_limit: int = PART_LIMIT,
        on_shown: OnShown | None = None,
    ) -> None:
        super().__init__(on_shown=on_shown)
        self._client = client
        self._target = target
        self._text = text
        self._part_limit = part_limit
        self._update_interval = update_interval
        self._last_update = time.monotonic()
        self._placeholder_ts = placeholder_ts
        self._waited = False

    @property
    def text(self) -> str:
        return self._text

    async def wait(self, ahead: int) -> None:
        self._placeholder_ts = await self._post(f"_Waiting: the bot {in_line(ahead)}_")
        self._waited = True

    async def begin(self) -> None:
        if self._placeholder_ts is None:
            self._placeholder_ts = await self._post(THINKING_PLACEHOLDER)
        elif self._waited:
            await self._update(THINKING_PLACEHOLDER)

    async def task(self, update: TaskUpdate) -> None:
        """A posted message has no tasks: only its text shows."""

    async def write(self, text: str) -> None:
        self._text += text
        due = time.monotonic() - self._last_update >= self._update_interval
        if due and self._placeholder_ts and self._text.strip():
            await self._show_progress()

    async def _show_progress(self) -> None:
        self._last_update = time.monotonic()
        shown = split_message(self._text, self._part_limit)[0]
        try:
            await self._update(shown)
        except SlackApiError as error:
            log.info("progress update failed: %s", error.response.get("error"))
            return
        await self._shown(self._placeholder_ts)

    async def finish(self, footers: Footers = ()) -> list[str]:
        parts = split_message(self._text.strip() or "…", self._part_limit)
        timestamps: list[str] = []
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            timestamps.append(
                await self._show_part(part, first=index == 0, footers=footers if last else ())
            )
        return timestamps

    async def _show_part(self, text: str, *, first: bool, footers: Footers) -> str:
        """Show a finished part (the placeholder becomes the first), with a footer if any.

        With blocks, Slack shows the blocks instead of ``text``, so the part's text is
        repeated in them (``text`` stays as the notification fallback)."""
        for footer in [*footers, None]:
            blocks = answer_blocks(text, footer) if footer is not None else None
            try:
                if first and self._placeholder_ts is not None:
                    await self._update(text, blocks)
                    ts = self._placeholder_ts
                else:
                    ts = await self._post(text, blocks)
            except SlackApiError as error:
                if _refused_blocks(error, footer):
                    continue
                raise
            if first:
                self._placeholder_ts = ts
            await self._shown(ts)
            return ts
        raise AssertionError("unreachable: the last attempt has no blocks")

    async def _post(self, text: str, blocks: list[dict[str, Any]] | None = None) -> str:
        response = await self._client.chat_postMessage(
            channel=self._target.channel_id,
            thread_ts=self._target.thread_ts,
            text=text,
            blocks=blocks,
        )
        return str(response["ts"])

    async def _update(self, text: str, blocks: list[dict[str, Any]] | None = None) -> None:
        await self._client.chat_update(
            channel=self._target.channel_id, ts=self._placeholder_ts, text=text, blocks=blocks
        )


class StreamingReply(Reply):
    """An answer streamed into a thread, one streamed message per part."""

    def __init__(
        self,
        client: AsyncWebClient,
        target: ReplyTarget,
        *,
        part_limit: int = PART_LIMIT,
        buffer_size: int = 256,
        on_shown: OnShown | None = None,
    ) -> None:
        if target.thread_ts is None:
            raise ValueError("streaming needs a thread to reply in")
        super().__init__(on_shown=on_shown)
        self._client = client
        self._target = target
        self._thread_ts = target.thread_ts
        self._part_limit = part_limit
        self._buffer_size = buffer_size
        self._done: list[str] = []
        self._stream: AsyncChatStream | None = None
        self._part = ""
        self._sent = 0
        self._text = ""
        self._fallback: PostedReply | None = None
        self._titled = False

    @property
    def text(self) -> str:
        return self._text

    async def wait(self, ahead: int) -> None:
        """Title a new conversation, and show where the question stands in line."""
        await self._title()
        await self._status(in_line(ahead), [])

    async def begin(self) -> None:
        """Title a new conversation, then show the thinking status (both best effort)."""
        await self._title()
        await self._status(THINKING_STATUS, list(LOADING_MESSAGES))

    async def _title(self) -> None:
        target = self._target
        if target.title and not self._titled:
            self._titled = True
            try:
                await self._client.assistant_threads_setTitle(
                    channel_id=target.channel_id, thread_ts=self._thread_ts, title=target.title
                )
            except SlackApiError as error:
                log.debug("title not set: %s", error.response.get("error"))

    async def _status(self, status: str, loading_messages: list[str]) -> None:
        try:
            await self._client.assistant_threads_setStatus(
                channel_id=self._target.channel_id,
                thread_ts=self._thread_ts,
                status=status,
                loading_messages=loading_messages or None,
            )
        except SlackApiError as error:
            log.debug("thinking status not shown: %s", error.response.get("error"))

    async def task(self, update: TaskUpdate) -> None:
        """A ``task_update`` chunk in the current streamed part (after the text so far)."""
        if self._fallback is not None:
            return
        try:
            stream = await self._open_stream()
            await stream.append(chunks=[TaskUpdateChunk(**update.model_dump())])
        except (SlackApiError, SlackRequestError) as error:
            await self._fall_back(error)

    async def write(self, text: str) -> None:
        self._text += text
        if self._fallback is not None:
            await self._fallback.write(text)
            return
        self._part += text
        try:
            await self._flow()
        except (SlackApiError, SlackRequestError) as error:
            await self._fall_back(error)

    async def finish(self, footers: Footers = ()) -> list[str]:
        if self._fallback is None:
            try:
                await self._forward(len(self._part))
                if self._stream is None and not self._done:
                    await self._forward_text("…")
                await self._stop_part(footers)
                return list(self._done)
            except (SlackApiError, SlackRequestError) as error:
                await self._fall_back(error)
        assert self._fallback is not None
        return self._done + await self._fallback.finish(footers)

    # -- parts -----------------------------------------------------------------------------
    async def _flow(self) -> None:
        """Send what can be sent; cut the part when it would exceed the limit."""
        while len(self._part) > self._part_limit:
            cut = find_split(self._part, self._part_limit, min_pos=self._sent)
            head, rest = self._part[:cut], self._part[cut:]
            fence = open_fence_at(head)
            await self._forward(cut)
            if fence is not None:
                await self._forward_text(fence.close)
                rest = fence.reopen + rest.lstrip("\n")
            else:
                rest = rest.lstrip("\n")
            await self._stop_part()
            self._part = rest
        safe = len(self._part)
        if safe > self._part_limit - HOLD_BACK:
            safe = max(self._sent, self._part_limit - HOLD_BACK)
        await self._forward(safe)

    async def _forward(self, upto: int) -> None:
        if upto > self._sent:
            await self._forward_text(self._part[self._sent : upto])
            self._sent = upto

    async def _open_stream(self) -> AsyncChatStream:
        if self._stream is None:
            self._stream = await self._client.chat_stream(
                buffer_size=self._buffer_size,
                channel=self._target.channel_id,
                thread_ts=self._thread_ts,
                recipient_team_id=self._target.team_id,
                recipient_user_id=self._target.user_id,
                task_display_mode="timeline",
            )
        return self._stream

    async def _forward_text(self, text: str) -> None:
        stream = await self._open_stream()
        await stream.append(markdown_text=text)
        await self._shown(stream.ts)  # None until the SDK's buffer first flushes

    async def _stop_part(self, footers: Footers = ()) -> None:
        """Stop the streamed part, with the first of ``footers`` Slack accepts under it."""
        if self._stream is None:
            return
        if self._stream.ts is None:  # all of it still buffered: show it before it is final
            await self._stream.append(chunks=[])
            await self._shown(self._stream.ts)
        for footer in [*footers, None]:
            try:
                await self._stream.stop(blocks=footer)
            except SlackApiError as error:
                if _refused_blocks(error, footer):
                    continue
                raise
            break
        await self._shown(self._stream.ts)
        self._done.append(str(self._stream.ts))
        self._stream = None
        self._part = ""
        self._sent = 0

    async def _fall_back(self, error: SlackApiError | SlackRequestError) -> None:
        """Streaming is refused: show the current part by post/update from now on."""
        reason = error.response.get("error") if isinstance(error, SlackApiError) else str(error)
        log.info("streaming unavailable (%s); posting and updating instead", reason)
        started = self._stream.ts if self._stream is not None else None
        self._stream = None
        self._fallback = PostedReply(
            self._client,
            self._target,
            placeholder_ts=started,
            text=self._part,
            on_shown=self._shown,
        )
        self._part = ""
        self._sent = 0
        if started is None and not self._done:
            await self._fallback.begin()


def open_reply(
    client: AsyncWebClient,
    target: ReplyTarget,
    *,
    part_limit: int = PART_LIMIT,
    on_shown: OnShown | None = None,
) -> Reply:
    """Stream into a thread; post and update at the top level of a DM."""
    if target.thread_ts is None:
        return PostedReply(client, target, part_limit=part_limit, on_shown=on_shown)
    return StreamingReply(client, target, part_limit=part_limit, on_shown=on_shown)
