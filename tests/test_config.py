"""Every setting is documented in .env.example, and settings parse as documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from bot.config import (
    EXAMPLE_VALUES,
    ConfigurationError,
    Settings,
    describe_validation_error,
    load_settings,
    manifest_bot_scopes,
)

ENV_EXAMPLE = Path(__file__).resolve().parents[1] / ".env.example"


def documented_variables() -> dict[str, str]:
    """Variables set in .env.example, each mapped to the comment lines just above it."""
    documented: dict[str, str] = {}
    comment: list[str] = []
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line.startswith("#"):
            comment.append(line)
        elif match := re.match(r"^([A-Z][A-Z0-9_]*)=", line):
            documented[match.group(1)] = "\n".join(comment)
            comment = []
        else:
            comment = []
    return documented


def test_every_setting_is_in_env_example_with_a_comment() -> None:
    documented = documented_variables()
    fields = {name.upper() for name in Settings.model_fields}
    assert fields == set(documented), "Settings and .env.example disagree"
    for name in fields:
        assert documented[name].strip(), f"{name} has no comment in .env.example"


def test_env_example_values_are_valid_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, _ in documented_variables().items():
        monkeypatch.delenv(name, raising=False)
    settings = Settings(_env_file=ENV_EXAMPLE)  # type: ignore[call-arg]
    assert settings.port == 3000
    assert not settings.socket_mode
    assert settings.positive_reactions == frozenset({"+1", "thumbsup"})


def test_env_example_values_are_the_defaults_but_for_the_slack_placeholders(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in documented_variables():
        monkeypatch.delenv(name, raising=False)
    example = Settings(_env_file=ENV_EXAMPLE)  # type: ignore[call-arg]
    defaults = Settings(_env_file=None, **EXAMPLE_VALUES)  # type: ignore[call-arg, arg-type]

    def shown(value: object) -> object:
        """An empty secret and an unset one are alike: no token."""
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        return None if raw == "" else raw

    for name in Settings.model_fields:
        assert shown(getattr(example, name)) == shown(getattr(defaults, name)), name


def test_reaction_sets_are_comma_separated_and_colons_are_optional(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")
    monkeypatch.setenv("POSITIVE_REACTIONS", "+1, :white_check_mark:,heart")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.positive_reactions == frozenset({"+1", "white_check_mark", "heart"})
    assert settings.memory_config().positive_reactions == settings.positive_reactions


def test_missing_token_is_reported_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")
    with pytest.raises(ValidationError) as raised:
        Settings(_env_file=None)  # type: ignore[call-arg]
    assert "slack_bot_token" in str(raised.value)


@pytest.mark.parametrize(
    ("name", "value", "told"),
    [
        ("SLACK_APP_TOKEN", "xoxb-1-pasted", "SLACK_APP_TOKEN is invalid (it holds a bot token; "),
        ("SLACK_BOT_TOKEN", "xapp-1-pasted", "SLACK_BOT_TOKEN is invalid (it holds an app-level"),
        ("SLACK_BOT_TOKEN", "xoxp-1-pasted", "SLACK_BOT_TOKEN is invalid (it holds a user token"),
        ("SLACK_BOT_TOKEN", "pasted", "SLACK_BOT_TOKEN is invalid (it holds no Slack token; "),
    ],
)
def test_a_token_in_the_wrong_setting_is_named_by_its_kind_never_its_value(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, told: str
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError) as raised:
        Settings(_env_file=None)  # type: ignore[call-arg]

    line = describe_validation_error(raised.value)
    assert line.startswith(told)
    assert "pasted" not in line


def test_a_rotating_bot_token_is_a_bot_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxe.xoxb-1-rotating")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")

    assert Settings(_env_file=None).slack_bot_token is not None  # type: ignore[call-arg]


def test_secrets_do_not_leak_through_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-very-secret-value")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "signing-very-secret")
    monkeypatch.setenv("LLM_API_KEY", "sk-very-secret")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    shown = repr(settings) + str(settings.model_dump())
    for secret in ("xoxb-very-secret-value", "signing-very-secret", "sk-very-secret"):
        assert secret not in shown


def test_a_postgresql_url_is_used_instead_of_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOT_DB_URL", "postgresql://bot:s3cret@db:5432/bot")
    settings = Settings(_env_file=None, slack_bot_token="xoxb-t", slack_signing_secret="s")  # type: ignore[call-arg]
    assert settings.store_url() == "postgresql://bot:s3cret@db:5432/bot"
    assert "s3cret" not in repr(settings), "the URL may hold a password: it is a secret"
    monkeypatch.setenv("BOT_DB_URL", "")
    settings = Settings(_env_file=None, slack_bot_token="xoxb-t", slack_signing_secret="s")  # type: ignore[call-arg]
    assert settings.store_url() == str(settings.bot_db_path)


def test_a_database_url_that_is_not_postgresql_is_refused_without_echoing_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")
    monkeypatch.setenv("BOT_DB_URL", "mysql://bot:s3cret@db/bot")
    with pytest.raises(ConfigurationError) as raised:
        load_settings(Settings)
    assert "BOT_DB_URL" in str(raised.value) and "postgresql://" in str(raised.value)
    assert "s3cret" not in str(raised.value)


def test_the_database_url_and_its_password_are_secrets_of_the_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BOT_DB_URL", "postgresql://bot:s3cret@db:5432/bot")
    settings = Settings(_env_file=None, slack_bot_token="xoxb-t", slack_signing_secret="s")  # type: ignore[call-arg]
    assert {"s3cret", "postgresql://bot:s3cret@db:5432/bot"} <= set(settings.secret_values())


def test_oauth_mode_needs_no_bot_token_and_asks_for_the_scopes_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env: the first command of the README makes one
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")
    monkeypatch.setenv("SLACK_CLIENT_ID", "1111.2222")
    monkeypatch.setenv("SLACK_CLIENT_SECRET", "client-secret")
    monkeypatch.setenv("SLACK_SCOPES", "chat:write, im:history,")
    settings = load_settings(Settings)
    assert settings.oauth_mode and settings.slack_bot_token is None
    assert settings.bot_scopes == ("chat:write", "im:history")
    assert "client-secret" in settings.secret_values()
    monkeypatch.setenv("SLACK_SCOPES", "")
    assert load_settings(Settings).bot_scopes == manifest_bot_scopes()


def test_half_an_oauth_configuration_is_single_token_mode(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "secret")
    monkeypatch.setenv("SLACK_CLIENT_ID", "1111.2222")
    monkeypatch.setenv("SLACK_CLIENT_SECRET", "")
    with pytest.raises(ConfigurationError, match="SLACK_BOT_TOKEN is not set"):
        load_settings(Settings)
