"""The README's local playground: the real bot in HTTP mode against the shipped fakes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """\
dm how do I rotate the staging password?
mention what does the deploy script do?
thread and on production?
+1
as bob
+1
as alice
forget
quit
"""


def test_a_new_user_can_dm_and_mention_the_bot_and_teach_it(tmp_path: Path) -> None:
    finished = subprocess.run(
        [sys.executable, "-m", "bot.playground", "--port", "0", "--db", str(tmp_path / "p.db")],
        input=SCRIPT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=tmp_path,
    )
    out = finished.stdout
    assert "HTTP mode" in out
    assert out.count("bot (") == 3, out
    assert "in the DM, in a thread):\nAnswer: how do I rotate" in out
    assert "in #general, in a thread):\nAnswer: what does the deploy script do?" in out
    assert "in #general, in a thread):\nAnswer: and on production?" in out
    assert "Your validated memories: 1 👍, 0 👎." in out
    assert "Your validated memories: 0 👍, 0 👎." in out, "bob's reaction must not count"
    assert "erased everything" in out
    assert "Traceback" not in finished.stderr
