"""Starting ``python -m bot`` with a bad configuration: one line naming the setting, exit 2."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.process import PROJECT_ROOT, run_bot_to_end


def the_one_line(finished: subprocess.CompletedProcess[str]) -> str:
    assert finished.returncode == 2, finished.stderr
    assert "Traceback" not in finished.stderr
    [line] = finished.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize(
    ("empty", "other"),
    [("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"), ("SLACK_SIGNING_SECRET", "SLACK_BOT_TOKEN")],
)
def test_an_empty_slack_setting_is_named_in_one_line(
    tmp_path: Path, empty: str, other: str
) -> None:
    line = the_one_line(run_bot_to_end(cwd=tmp_path, **{empty: "", other: "xoxb-set"}))

    assert empty in line
    assert "empty" in line
    assert other not in line


def test_an_empty_value_in_dot_env_is_named_too(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-1\nSLACK_SIGNING_SECRET=\n")

    line = the_one_line(run_bot_to_end(cwd=tmp_path))

    assert "SLACK_SIGNING_SECRET is empty" in line


def test_the_first_run_with_the_example_env_says_to_fill_it_in(tmp_path: Path) -> None:
    shutil.copy(PROJECT_ROOT / ".env.example", tmp_path / ".env")

    line = the_one_line(run_bot_to_end(cwd=tmp_path))

    assert "example values" in line
    assert "SLACK_BOT_TOKEN" in line
    assert "SLACK_SIGNING_SECRET" in line
    assert "SLACK_APP_TOKEN for Socket Mode" in line
    assert "python -m bot playground" in line
    assert "URL" not in line


def test_an_unknown_log_format_is_named(tmp_path: Path) -> None:
    line = the_one_line(
        run_bot_to_end(
            cwd=tmp_path, SLACK_BOT_TOKEN="xoxb-1", SLACK_SIGNING_SECRET="s", LOG_FORMAT="xml"
        )
    )

    assert "LOG_FORMAT" in line
