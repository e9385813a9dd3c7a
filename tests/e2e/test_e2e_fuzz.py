"""Fuzzing the real HTTP server: no input gets a 5xx, and none leaves a traceback.

Requests go over raw TCP (so headers can hold what an HTTP client would refuse to send) to
the bot under test, built by hypothesis: Slack-shaped payloads with any field swapped for
any JSON value, form bodies (slash commands and interactive payloads), bytes, signed,
unsigned or with garbage signatures. Every response must be below 500; afterwards the
log (the bot's own handler, with its guards) holds no traceback and no listener failure,
and the records themselves carry an exception only for aiohttp's malformed-request lines.
``FUZZ_EXAMPLES`` sets how many examples each test draws (default 120).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import io
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.logging_setup import LogHygiene, RedactingFormatter
from bot.server import EVENTS_PATH
from bot.views import FEEDBACK_ACTION_ID, FORGET_EVERYTHING_ACTION_ID, FORGET_ITEM_ACTION_ID
from tests.support.harness import ALICE, SIGNING_SECRET, SignedSlack, dm_channel

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "120"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# -- the wire ------------------------------------------------------------------------------


@dataclass
class Request:
    body: bytes
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)


def signature_headers(body: bytes, *, secret: str = SIGNING_SECRET) -> list[tuple[bytes, bytes]]:
    stamp = str(int(time.time()))
    digest = hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256)
    return [
        (b"X-Slack-Request-Timestamp", stamp.encode()),
        (b"X-Slack-Signature", f"v0={digest.hexdigest()}".encode()),
    ]


async def send(url: str, request: Request) -> int:
    """POST over a fresh TCP connection; the response's status (0: no response at all)."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    head = [
        f"POST {EVENTS_PATH} HTTP/1.1".encode(),
        f"Host: {parts.netloc}".encode(),
        b"Connection: close",
        f"Content-Length: {len(request.body)}".encode(),
        *(name + b": " + value for name, value in request.headers),
    ]
    try:
        writer.write(b"\r\n".join(head) + b"\r\n\r\n" + request.body)
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), 10)
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    fields = status_line.split()
    return int(fields[1]) if len(fields) >= 2 and fields[1].isdigit() else 0


# -- what a client may send ----------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=24),
)
anything = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def maybe(shape: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The right shape most of the time, anything at all otherwise."""
    return st.one_of(shape, shape, anything)


people = st.sampled_from([ALICE, "U0000BOB", "", "U" + "9" * 30, "Ü"])
channels = st.sampled_from([dm_channel(ALICE), "C0000GENERAL", "", "D²", "G1"])
stamps = st.sampled_from(["1700000000.000100", "", "1e400", "१२.३", "x"]) | st.text(max_size=12)
ids_or_objects = maybe(st.fixed_dictionaries({}, optional={"id": maybe(st.text(max_size=10))}))

event = st.fixed_dictionaries(
    {
        "type": maybe(
            st.sampled_from(
                [
                    "message",
                    "app_mention",
                    "reaction_added",
                    "reaction_removed",
                    "app_home_opened",
                    "assistant_thread_started",
                    "assistant_thread_context_changed",
                    "team_join",
                ]
            )
        )
    },
    optional={
        "user": maybe(people),
        "channel": maybe(channels),
        "text": maybe(st.text(max_size=40)),
        "ts": maybe(stamps),
        "thread_ts": maybe(stamps),
        "subtype": maybe(st.sampled_from(["bot_message", "message_changed", "file_share"])),
        "channel_type": maybe(st.sampled_from(["im", "channel", "group"])),
        "reaction": maybe(st.sampled_from(["+1", "-1", "thumbsup::skin-tone-2", "tada"])),
        "item": maybe(
            st.fixed_dictionaries(
                {"type": maybe(st.just("message"))},
                optional={"channel": maybe(channels), "ts": maybe(stamps)},
            )
        ),
        "tab": maybe(st.sampled_from(["home", "messages"])),
        "bot_id": maybe(st.just("B0000BOT")),
        "message": anything,
        "assistant_thread": maybe(
            st.fixed_dictionaries(
                {},
                optional={
                    "user_id": maybe(people),
                    "channel_id": maybe(channels),
                    "thread_ts": maybe(stamps),
                    "context": anything,
                },
            )
        ),
    },
)

event_callback = st.fixed_dictionaries(
    {"type": maybe(st.just("event_callback")), "event": maybe(event)},
    optional={
        "team_id": maybe(st.just("T0000TEAM")),
        "event_id": maybe(st.text(max_size=12)),
        "api_app_id": anything,
        "authorizations": maybe(
            st.lists(st.fixed_dictionaries({}, optional={"team_id": anything}), max_size=2)
        ),
        "is_ext_shared_channel": anything,
        "enterprise": ids_or_objects,
        "team": ids_or_objects,
        "user": ids_or_objects,
        "channel": ids_or_objects,
    },
)

action = st.fixed_dictionaries(
    {
        "action_id": maybe(
            st.sampled_from(
                [
                    FEEDBACK_ACTION_ID,
                    f"{FEEDBACK_ACTION_ID}:up",
                    FORGET_ITEM_ACTION_ID,
                    FORGET_EVERYTHING_ACTION_ID,
                    "x",
                ]
            )
        )
    },
    optional={
        "value": maybe(
            st.sampled_from(["up", "down", "episode:1", "episode:²", "episode:" + "9" * 20])
        ),
        "type": maybe(st.sampled_from(["button", "feedback_buttons"])),
        "block_id": anything,
    },
)

interactive = st.fixed_dictionaries(
    {
        "type": maybe(st.sampled_from(["block_actions", "view_submission", "shortcut"])),
        "user": maybe(st.fixed_dictionaries({"id": maybe(people)})),
    },
    optional={
        "actions": maybe(st.lists(maybe(action), max_size=2)),
        "container": maybe(
            st.fixed_dictionaries(
                {},
                optional={
                    "type": maybe(st.sampled_from(["message", "view"])),
                    "channel_id": maybe(channels),
                    "message_ts": maybe(stamps),
                },
            )
        ),
        "channel": ids_or_objects,
        "team": ids_or_objects,
        "message": maybe(st.fixed_dictionaries({}, optional={"ts": maybe(stamps)})),
        "view": maybe(st.fixed_dictionaries({}, optional={"type": anything, "id": anything})),
        "response_url": maybe(st.just("http://127.0.0.1:9/respond/1")),
        "trigger_id": anything,
    },
)

json_bodies = st.one_of(
    event_callback,
    interactive,
    st.fixed_dictionaries({"type": maybe(st.just("url_verification")), "challenge": anything}),
    anything,
).map(lambda value: json.dumps(value).encode())

command_fields = st.fixed_dictionaries(
    {},
    optional={
        "command": maybe(st.sampled_from(["/memory", "/forget", "/other"])).map(str),
        "user_id": people,
        "channel_id": channels,
        "team_id": st.sampled_from(["T0000TEAM", ""]),
        "text": st.text(max_size=20),
        "response_url": st.just("http://127.0.0.1:9/respond/2"),
    },
)
form_bodies = st.one_of(
    command_fields.map(lambda fields: urlencode(fields).encode()),
    interactive.map(lambda value: urlencode({"payload": json.dumps(value)}).encode()),
    st.text(max_size=40).map(lambda text: urlencode({"payload": text}).encode()),
    st.binary(max_size=40),
)

JSON = b"application/json"
FORM = b"application/x-www-form-urlencoded"
header_junk = st.binary(min_size=1, max_size=12).map(lambda raw: raw.replace(b"\r\n", b"\x00"))


@st.composite
def requests(draw: st.DrawFn, bodies: st.SearchStrategy[bytes], content_type: bytes) -> Request:
    body = draw(bodies)
    headers = [(b"Content-Type", draw(st.sampled_from([content_type] * 4 + [b"text/plain"])))]
    signing = draw(st.sampled_from(["signed"] * 5 + ["unsigned", "forged", "garbage", "twice"]))
    if signing == "signed":
        headers += signature_headers(body)
    elif signing == "twice":  # a valid signature, then another
        headers += signature_headers(body)
        headers.append((b"X-Slack-Signature", draw(header_junk | st.just("v0=é".encode()))))
    elif signing == "forged":
        headers += signature_headers(body, secret="not-the-secret")
    elif signing == "garbage":
        headers += [
            (b"X-Slack-Request-Timestamp", draw(header_junk | st.just(b"9" * 40))),
            (b"X-Slack-Signature", draw(header_junk | st.just("v0=é".encode()))),
        ]
    return Request(body=body, headers=headers)


@st.composite
def broken_headers(draw: st.DrawFn) -> Request:
    """A signed Slack-shaped body under a header no HTTP client would send."""
    body = json.dumps({"type": "event_callback", "event": {"type": "app_home_opened"}}).encode()
    junk = draw(st.binary(min_size=1, max_size=8).filter(lambda raw: b"\r\n" not in raw))
    where = draw(st.sampled_from(["value", "name", "signature"]))
    headers = [(b"Content-Type", JSON), *signature_headers(body)]
    if where == "value":
        headers.append((b"X-Custom", b"a" + junk + b"\x01"))
    elif where == "name":
        headers.append((b"X-" + junk + b"\x7f", b"value"))
    else:
        headers[-1] = (b"X-Slack-Signature", b"v0=\x00" + junk)
    return Request(body=body, headers=headers)


# -- the log ------------------------------------------------------------------------------


class Captured(logging.Handler):
    """Every record, before any guard: to check which ones carried an exception."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class BotLog:
    text: io.StringIO
    raw: Captured

    def mark(self) -> tuple[int, int]:
        return len(self.text.getvalue()), len(self.raw.records)

    def problems(self, since: tuple[int, int] = (0, 0)) -> list[str]:
        """Tracebacks, failed listeners, and exceptions other than aiohttp's 400s."""
        output = self.text.getvalue()[since[0] :]
        found = [line for line in output.splitlines() if "could not be handled" in line]
        if "Traceback" in output:
            found.append("a traceback")
        for record in self.raw.records[since[1] :]:
            if record.exc_info and record.name != "aiohttp.server":
                found.append(f"{record.name}: {record.msg}")
        return found


@pytest.fixture
def bot_log() -> Iterator[BotLog]:
    """The bot's log as ``python -m bot`` writes it (DEBUG, both guards), plus the records."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(LogHygiene())
    raw = Captured()
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.DEBUG)
    root.addHandler(raw)  # first: it sees each record before the guard rewrites it
    root.addHandler(handler)
    try:
        yield BotLog(stream, raw)
    finally:
        root.removeHandler(handler)
        root.removeHandler(raw)
        root.setLevel(level)


@dataclass
class Fuzzed:
    url: str
    log: BotLog

    async def assert_no_5xx(self, request: Request) -> None:
        """Send ``request``: its response is below 500 and the log gained no problem."""
        before = self.log.mark()
        status = await send(self.url, request)
        assert 0 < status < 500, (status, request)
        assert self.log.problems(since=before) == [], request


@pytest.fixture
async def fuzzed(slack: SignedSlack, bot_log: BotLog) -> AsyncIterator[Fuzzed]:
    """The bot under test; afterwards, once it is idle, its whole log must be clean (answers
    and clicks run on after their acknowledgement)."""
    yield Fuzzed(slack.server.url, bot_log)
    await slack.settled()
    assert bot_log.problems() == []


# -- the tests ------------------------------------------------------------------------------


@FUZZ
@given(request=requests(json_bodies, JSON))
async def test_json_bodies_never_get_a_5xx(fuzzed: Fuzzed, request: Request) -> None:
    await fuzzed.assert_no_5xx(request)


@FUZZ
@given(request=requests(form_bodies, FORM))
async def test_form_bodies_commands_and_interactive_payloads_never_get_a_5xx(
    fuzzed: Fuzzed, request: Request
) -> None:
    await fuzzed.assert_no_5xx(request)


@FUZZ
@given(request=broken_headers())
async def test_control_characters_in_headers_get_a_400_and_one_log_line(
    fuzzed: Fuzzed, request: Request
) -> None:
    before = len(fuzzed.log.text.getvalue().splitlines())

    status = await send(fuzzed.url, request)

    assert 400 <= status < 500
    lines = fuzzed.log.text.getvalue().splitlines()[before:]
    assert len(lines) <= 1, lines
