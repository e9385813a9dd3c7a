"""The bot's own import path never loads a fake, and the agent core stays generic."""

import ast
import subprocess
import sys
from pathlib import Path


def _modules_loaded_by(statement: str) -> list[str]:
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return out.split()


def test_production_entry_points_load_no_fake_module() -> None:
    loaded = _modules_loaded_by("import bot.app, bot.server, bot.__main__")
    assert "bot.app" in loaded
    assert [m for m in loaded if m.startswith(("bot.simulator", "tests")) or "fake" in m] == []


def test_benchmarks_import_only_the_shared_test_drivers() -> None:
    """Benchmarks drive the bot as the tests do (tests/support), but load no test and no pytest."""
    loaded = _modules_loaded_by("import benchmarks.harness, benchmarks.load, benchmarks.backends")
    assert "tests.support.harness" in loaded
    tests = [m for m in loaded if m.split(".")[0] == "tests"]
    assert [m for m in tests if m not in ("tests", "tests.support")] == [
        m for m in tests if m.startswith("tests.support.")
    ]
    assert [m for m in loaded if m.split(".")[0] in ("pytest", "_pytest")] == []


def test_the_agent_core_loads_nothing_of_the_application() -> None:
    loaded = _modules_loaded_by("import bot.agent")
    assert "bot.agent.loop" in loaded
    application = [
        m
        for m in loaded
        if m in ("memory", "slack_bolt", "slack_sdk")
        or m.startswith(("memory.", "slack_bolt.", "slack_sdk."))
        or (m.startswith("bot.") and not m.startswith("bot.agent"))
    ]
    assert application == []


def test_no_module_of_the_agent_core_imports_the_application() -> None:
    """Checked in the source too, so an import inside a function can't slip through."""
    core = Path(__file__).resolve().parent.parent / "bot" / "agent"
    offenders = []
    for path in sorted(core.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            offenders += [
                f"{path.relative_to(core)}: {name}"
                for name in names
                if name.split(".")[0] in ("memory", "slack_bolt", "slack_sdk", "tests")
                or (name.startswith("bot") and not name.startswith("bot.agent"))
            ]
    assert offenders == []


def _imported_names(package: Path) -> list[tuple[Path, str]]:
    """(file, imported module) for every absolute import in the package's source."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                found += [(path, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.append((path, node.module))
    return found


def test_the_bot_never_imports_a_memory_backend_library() -> None:
    """bot/ catches memory's own errors; only memory/ knows the store is SQLite."""
    bot = Path(__file__).resolve().parent.parent / "bot"
    offenders = [
        f"{path.relative_to(bot)}: {name}"
        for path, name in _imported_names(bot)
        if name.split(".")[0] in ("sqlite3", "sqlite_utils") or name.startswith("memory.sqlite")
    ]
    assert offenders == []


def test_memory_imports_neither_slack_nor_a_model_client() -> None:
    memory = Path(__file__).resolve().parent.parent / "memory"
    offenders = [
        f"{path.relative_to(memory)}: {name}"
        for path, name in _imported_names(memory)
        if name.split(".")[0] in ("bot", "slack_bolt", "slack_sdk", "httpx", "aiohttp")
    ]
    assert offenders == []


def test_only_the_composition_root_opens_a_store_or_an_llm_client() -> None:
    """The server, the admin CLI, readiness and the start-up probe all go through
    bot/composition.py (the LLM package defines the client; the fakes are not the bot)."""
    bot = Path(__file__).resolve().parent.parent / "bot"
    builders = {"open_store", "build_llm_client", "OpenAICompatibleProvider"}
    offenders = []
    for path in sorted(bot.rglob("*.py")):
        relative = path.relative_to(bot)
        if relative.parts[0] in ("llm", "simulator") or relative == Path("composition.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom):
                offenders += [f"{relative}: {a.name}" for a in node.names if a.name in builders]
            elif isinstance(node, ast.Attribute) and node.attr in builders:
                offenders.append(f"{relative}: {node.attr}")
    assert offenders == []
