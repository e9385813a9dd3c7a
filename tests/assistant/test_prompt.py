"""The system prompt and the rendering of validated experience."""

from __future__ import annotations

from agent_support import episode, recalled

from bot.assistant import EXPERIENCE_HEADING, SYSTEM_PROMPT, render_experience
from memory import EpisodeStatus


def test_the_system_prompt_asks_for_slack_mrkdwn() -> None:
    assert "mrkdwn" in SYSTEM_PROMPT
    assert len(SYSTEM_PROMPT) < 2000


def test_successes_and_failures_are_marked_with_their_lessons() -> None:
    text = render_experience(
        recalled(
            episode("How to deploy?", "Use the pipeline.", EpisodeStatus.SUCCESS),
            episode("How to roll back?", "Delete the pod.", lesson="Use helm rollback."),
        ),
        None,
    )

    assert text.splitlines() == [
        f"{EXPERIENCE_HEADING}:",
        "- 👍 worked: Q: How to deploy? A: Use the pipeline.",
        "- 👎 did not work: Q: How to roll back? A: Delete the pod. Lesson: Use helm rollback.",
    ]


def test_pending_exchanges_are_never_rendered() -> None:
    pending = episode("q", "a", EpisodeStatus.PENDING)

    assert render_experience(recalled(pending), None) == ""


def test_advice_is_rendered_even_without_episodes() -> None:
    text = render_experience([], "Prefer short answers.")

    assert text == f"{EXPERIENCE_HEADING}:\nAdvice: Prefer short answers."


def test_long_fields_are_clipped_to_one_line() -> None:
    text = render_experience(
        recalled(episode("q", "line one\nline two " + "x" * 1000, EpisodeStatus.SUCCESS)), None
    )

    [_, line] = text.splitlines()
    assert line.endswith("…")
    assert len(line) < 450
