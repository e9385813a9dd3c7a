"""What /forget and /memory say."""

from __future__ import annotations

from bot.listeners.commands.forget import forget_summary
from bot.listeners.commands.memory import memory_summary
from memory import Episode, EpisodeStatus, ForgetReport
from tests.episodes import make_episode


def test_forget_lists_each_kind_with_its_count_in_words() -> None:
    report = ForgetReport(
        user_id="U1", counts={"episodes": 1, "ledger": 3, "votes": 2, "wisdom": 1}
    )

    assert forget_summary(report) == (
        "Done: I erased everything I kept about you (1 exchange, 3 message links, 2 votes, 1 note)."
    )


def test_forget_with_nothing_says_so() -> None:
    report = ForgetReport(user_id="U1", counts={"episodes": 0})

    assert "nothing to erase" in forget_summary(report)


def episode(question: str, status: EpisodeStatus) -> Episode:
    return make_episode(question, status=status)


def test_memory_shows_rated_questions_shortened() -> None:
    text = memory_summary(
        [
            episode("short question", EpisodeStatus.SUCCESS),
            episode("long " * 40, EpisodeStatus.FAILURE),
        ]
    )

    lines = text.splitlines()
    assert lines[1] == "👍 short question"
    assert lines[2].startswith("👎 long long")
    assert lines[2].endswith("…")
    assert len(lines[2]) <= 82


def test_memory_with_nothing_explains_how_to_teach_the_bot() -> None:
    assert "react 👍 or 👎" in memory_summary([])
