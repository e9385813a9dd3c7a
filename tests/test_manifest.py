"""The Slack app manifest asks for exactly what the bot uses."""

from __future__ import annotations

import json
from functools import reduce
from importlib import resources
from operator import getitem
from typing import Any

import pytest


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    return json.loads(resources.files("bot").joinpath("manifest.json").read_text())


@pytest.mark.parametrize(
    ("path", "asked_for"),
    [
        pytest.param(
            ("oauth_config", "scopes", "bot"),
            {
                "app_mentions:read",
                "chat:write",
                "channels:history",
                "groups:history",
                "im:history",
                "mpim:history",
                "im:read",
                "im:write",
                "reactions:read",
                "users:read",
                "commands",
                "assistant:write",
                "files:read",
            },
            id="bot-scopes",
        ),
        pytest.param(
            ("settings", "event_subscriptions", "bot_events"),
            {
                "app_mention",
                "message.im",
                "message.channels",
                "message.groups",
                "message.mpim",
                "reaction_added",
                "reaction_removed",
                "app_home_opened",
            },
            id="events-the-listeners-handle",
        ),
    ],
)
def test_the_manifest_asks_for_exactly_what_the_bot_uses(
    manifest: dict[str, Any], path: tuple[str, ...], asked_for: set[str]
) -> None:
    assert set(reduce(getitem, path, manifest)) == asked_for


def test_commands_interactivity_socket_mode_and_messages_tab(manifest: dict[str, Any]) -> None:
    commands = {command["command"] for command in manifest["features"]["slash_commands"]}
    assert commands == {"/forget", "/memory"}
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["settings"]["socket_mode_enabled"] is True
    assert manifest["features"]["app_home"]["messages_tab_enabled"] is True
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True


def test_the_agent_experience_not_the_legacy_assistant_one(manifest: dict[str, Any]) -> None:
    features = manifest["features"]
    assert "assistant_view" not in features
    assert features["agent_view"]["agent_description"]
    assert features["agent_view"]["suggested_prompts"] == []  # set per person, from their 👍s


@pytest.fixture(scope="module")
def distributed() -> dict[str, Any]:
    return json.loads(resources.files("bot").joinpath("manifest.distributed.json").read_text())


def test_the_distributed_app_asks_for_what_the_bot_uses_and_nothing_else(
    manifest: dict[str, Any], distributed: dict[str, Any]
) -> None:
    assert distributed["oauth_config"]["scopes"] == manifest["oauth_config"]["scopes"]
    assert distributed["features"]["app_home"] == manifest["features"]["app_home"]
    assert distributed["features"]["agent_view"] == manifest["features"]["agent_view"]
    commands = [command["command"] for command in distributed["features"]["slash_commands"]]
    assert commands == [command["command"] for command in manifest["features"]["slash_commands"]]
    events = distributed["settings"]["event_subscriptions"]["bot_events"]
    shipped = manifest["settings"]["event_subscriptions"]["bot_events"]
    assert events == [*shipped, "app_uninstalled", "tokens_revoked"]


def test_the_distributed_app_installs_over_http_with_rotating_tokens_org_wide(
    distributed: dict[str, Any],
) -> None:
    settings = distributed["settings"]
    assert distributed["oauth_config"]["redirect_urls"] == [
        "https://bot.example.com/slack/oauth_redirect"
    ]
    assert settings["token_rotation_enabled"] is True
    assert settings["org_deploy_enabled"] is True
    assert settings["socket_mode_enabled"] is False
    urls = [
        settings["event_subscriptions"]["request_url"],
        settings["interactivity"]["request_url"],
        *(command["url"] for command in distributed["features"]["slash_commands"]),
    ]
    assert set(urls) == {"https://bot.example.com/slack/events"}
