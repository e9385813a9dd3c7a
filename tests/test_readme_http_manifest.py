"""The README's HTTP-mode manifest stays in step with ``bot/manifest.json``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def http_manifest_parts() -> dict[str, Any]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### HTTP mode: the manifest, and exposing the bot", 1)[1]
    match = re.search(r"```json\n(.*?)\n```", section, re.DOTALL)
    assert match is not None, "the HTTP-mode section has no JSON manifest"
    parsed: dict[str, Any] = json.loads(match.group(1))
    return parsed


def test_the_http_manifest_has_the_same_events_and_commands_as_the_shipped_one() -> None:
    shipped = json.loads((ROOT / "bot" / "manifest.json").read_text())
    http = http_manifest_parts()

    assert (
        http["settings"]["event_subscriptions"]["bot_events"]
        == shipped["settings"]["event_subscriptions"]["bot_events"]
    )
    assert [c["command"] for c in http["features"]["slash_commands"]] == [
        c["command"] for c in shipped["features"]["slash_commands"]
    ]


def test_every_request_url_of_the_http_manifest_is_the_events_path() -> None:
    http = http_manifest_parts()
    settings = http["settings"]

    urls = [
        settings["event_subscriptions"]["request_url"],
        settings["interactivity"]["request_url"],
        *(command["url"] for command in http["features"]["slash_commands"]),
    ]
    assert all(url == "https://bot.example.com/slack/events" for url in urls)
    assert settings["socket_mode_enabled"] is False
    assert settings["interactivity"]["is_enabled"] is True
