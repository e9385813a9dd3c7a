"""Suggested prompts from a person's 👍 questions."""

from __future__ import annotations

from bot.views.suggested_prompts import (
    DEFAULT_PROMPTS,
    MAX_PROMPTS,
    PROMPT_TITLE_LIMIT,
    suggested_prompts,
)
from tests.views.views_support import episode


def test_no_successes_give_the_default_prompts() -> None:
    assert suggested_prompts([]) == list(DEFAULT_PROMPTS)


def test_each_question_once_in_the_order_given_at_most_four() -> None:
    questions = ["Deploy billing?", "deploy  BILLING?", "Rotate keys?", "Ports?", "DNS?", "TLS?"]

    prompts = suggested_prompts([episode(i, q) for i, q in enumerate(questions)])

    assert len(prompts) == MAX_PROMPTS
    assert [p.message for p in prompts] == ["Deploy billing?", "Rotate keys?", "Ports?", "DNS?"]


def test_a_long_question_gets_a_short_one_line_title_and_its_whole_text_as_message() -> None:
    question = "How do I\nrotate " + "the staging password " * 10

    [prompt] = suggested_prompts([episode(1, question)])

    assert len(prompt.title) <= PROMPT_TITLE_LIMIT
    assert "\n" not in prompt.title
    assert prompt.title.endswith("…")
    assert prompt.message == question.strip()


def test_blank_questions_are_skipped() -> None:
    assert suggested_prompts([episode(1, "  \n ")]) == list(DEFAULT_PROMPTS)
