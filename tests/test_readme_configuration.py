"""The README a newcomer follows: two commands first, a configuration section that names
every variable of ``.env.example``, each a setting the bot reads (``tests/test_config.py``
holds ``.env.example`` and the settings to each other), and the Slack app as the manifest
makes it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.config import Settings
from tests.test_config import documented_variables

README = Path(__file__).resolve().parents[1] / "README.md"


def section(title: str) -> str:
    """The text of the README's ``## title`` section, up to the next ``## `` heading."""
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_the_readme_opens_with_the_two_commands_before_any_section() -> None:
    before_sections = README.read_text().split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", before_sections, re.DOTALL)

    assert len(commands) == 2
    assert commands[0].endswith(".venv/bin/python -m bot")
    assert commands[1].endswith(".venv/bin/python -m pytest")


def test_the_configuration_table_names_every_variable_and_only_settings_the_bot_reads() -> None:
    rows = [line for line in section("Configuration").splitlines() if line.startswith("| `")]
    named = {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1])}
    settings = {name.upper() for name in Settings.model_fields}

    assert set(documented_variables()) - named == set(), "not in README's Configuration"
    assert named - settings == set(), "README's Configuration names what the bot does not read"


def test_creating_the_slack_app_names_the_manifests_events_and_commands() -> None:
    manifest = json.loads((README.parent / "bot" / "manifest.json").read_text())
    first_step = section("Creating the Slack app").split("\n2. ", 1)[0]
    events = first_step.split("the events", 1)[1].split(")", 1)[0]

    assert set(re.findall(r"`([a-z_.]+)`", events)) == set(
        manifest["settings"]["event_subscriptions"]["bot_events"]
    )
    for command in manifest["features"]["slash_commands"]:
        assert f"`{command['command']}`" in first_step
    assert manifest["settings"]["socket_mode_enabled"]
    assert "Socket Mode" in " ".join(first_step.split())
