"""The bot's own import path never loads a fake, and the agent core stays generic."""

import subprocess
import sys


def _modules_loaded_by(statement: str) -> list[str]:
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return out.split()


def test_production_entry_points_load_no_fake_module() -> None:
    loaded = _modules_loaded_by("import bot.app, bot.server, bot.__main__")
    assert "bot.app" in loaded
    assert [m for m in loaded if m.startswith("bot.testing") or "fake" in m] == []


def test_benchmarks_import_no_test_module() -> None:
    loaded = _modules_loaded_by("import benchmarks.harness, benchmarks.load")
    assert "benchmarks.harness" in loaded
    assert [m for m in loaded if m == "tests" or m.startswith("tests.")] == []
