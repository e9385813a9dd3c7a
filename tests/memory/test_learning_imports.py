"""Learning from votes lives in memory/, which must not pull in Slack or an LLM client."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("slack_bolt", "slack_sdk", "httpx", "aiohttp", "bot")


def test_the_memory_package_imports_neither_slack_nor_an_llm_client() -> None:
    script = (
        "import sys\n"
        "import memory, memory.learning, memory.working\n"
        f"print(sorted({{name.split('.')[0] for name in sys.modules}} & set({FORBIDDEN!r})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )

    assert result.stdout.strip() == "[]"
