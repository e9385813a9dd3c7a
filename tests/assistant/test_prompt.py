"""The system prompt and the rendering of validated experience."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.assistant import EXPERIENCE_HEADING, SYSTEM_PROMPT, render_experience
from memory import Advice, EpisodeStatus, WisdomNote
from tests.episodes import DM, make_episode


def test_the_system_prompt_asks_for_slack_mrkdwn() -> None:
    assert "mrkdwn" in SYSTEM_PROMPT
    assert len(SYSTEM_PROMPT) < 2000


def test_a_failure_is_its_lesson_and_never_the_rejected_answer() -> None:
    failed = make_episode(
        "How to roll back?",
        "Run `kubectl delete pod api`.",
        EpisodeStatus.FAILURE,
        lesson="Use helm rollback.",
    )

    text = render_experience(Advice(failures=[failed]))

    assert text.splitlines() == [
        f"{EXPERIENCE_HEADING}:",
        "- They asked “How to roll back?” and your answer did not help them. "
        "This time: Use helm rollback.",
    ]
    assert "kubectl" not in text


def test_a_failure_without_its_lesson_yet_asks_for_a_different_answer() -> None:
    failed = make_episode(
        "How to roll back?", "Run `kubectl delete pod api`.", EpisodeStatus.FAILURE
    )

    text = render_experience(Advice(failures=[failed]))

    assert "give a different answer" in text
    assert "kubectl" not in text


def test_a_success_is_the_answer_to_give_again() -> None:
    worked = make_episode("How to deploy?", "Use the pipeline.", EpisodeStatus.SUCCESS)

    text = render_experience(Advice(successes=[worked]))

    assert text.splitlines()[1] == (
        "- They asked “How to deploy?” and this answer worked for them; "
        "give it again if it fits: Use the pipeline."
    )


def test_wisdom_notes_are_rendered_even_without_episodes() -> None:
    note = WisdomNote(
        id=1,
        scope=DM,
        user_id="U1",
        text="Prefers short answers.",
        episode_count=3,
        created_at=datetime(2026, 11, 1, tzinfo=UTC),
    )

    text = render_experience(Advice(wisdom=[note]))

    assert text == f"{EXPERIENCE_HEADING}:\n- Prefers short answers."


def test_no_experience_renders_nothing() -> None:
    assert render_experience(Advice()) == ""


def test_long_fields_are_clipped_to_one_line() -> None:
    worked = make_episode("q", "line one\nline two " + "x" * 1000, EpisodeStatus.SUCCESS)

    [_, line] = render_experience(Advice(successes=[worked])).splitlines()

    assert line.endswith("…")
    assert len(line) < 500
