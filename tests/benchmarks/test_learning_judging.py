"""How benchmarks/learning.py judges a later answer (no model needed)."""

from __future__ import annotations

from benchmarks.learning import load_cases, own_words, usability_problems
from bot.assistant.lesson_evaluator import NO_OTHER_ANSWER_GIVEN_REASON
from bot.assistant.lessons.reflector import FROM_REASON

APPROVED = "Run `sudo systemd-resolve --flush-caches` in a terminal to clear it right away."
PROMPT = [
    {
        "messages": [
            {"role": "system", "content": "You are a helpful assistant in a Slack workspace."},
            {
                "role": "system",
                "content": "Notes on this person's earlier questions:\n- They asked “How do I "
                f"clear the DNS cache?” and this answer worked for them; give it again: {APPROVED}",
            },
            {"role": "user", "content": "How do I reset the DNS cache?"},
        ]
    }
]
OWN = ["How do I clear the DNS cache?", "How do I reset the DNS cache?", APPROVED]


def test_giving_an_approved_answer_again_is_usable() -> None:
    assert usability_problems(APPROVED, PROMPT, own=OWN) == []


def test_quoting_the_experience_section_is_not() -> None:
    echo = f"They asked “How do I clear the DNS cache?” and this answer worked for them: {APPROVED}"

    [problem] = usability_problems(echo, PROMPT, own=OWN)

    assert problem.startswith("quotes the bot's internal text")


def test_the_persons_own_reason_read_back_is_usable_and_the_lesson_is_not() -> None:
    [case] = [case for case in load_cases("tune") if case.id == "git-undo-commit"]
    lesson = "Suggest git revert: it adds a commit that undoes the last one, and keeps history."
    prompt = [
        {
            "messages": [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "system", "content": f"{FROM_REASON.format(reason=case.reason)} {lesson}"},
                {"role": "user", "content": case.paraphrase},
            ]
        }
    ]
    own = own_words(case, "Run `git reset --hard HEAD~1`.", case.reason)

    asked = NO_OTHER_ANSWER_GIVEN_REASON.format(reason=case.reason)
    assert usability_problems(asked, prompt, own=own) == []
    [problem] = usability_problems(f"Sure. {lesson}", prompt, own=own)
    assert problem.startswith("quotes the bot's internal text")


def test_refusals_tool_calls_as_text_and_notices_are_not() -> None:
    assert usability_problems("I'm sorry, I can't help with that.", PROMPT) == ["refuses"]
    assert usability_problems('<tool_call>{"name": "x"}</tool_call>', PROMPT) == [
        "a tool call written as text"
    ]
    assert usability_problems("", PROMPT) == ["a notice, not an answer"]


def test_the_splits_are_apart_and_each_case_is_complete() -> None:
    tune, report = load_cases("tune"), load_cases("report")

    assert len(tune) + len(report) >= 30
    assert not {case.id for case in tune} & {case.id for case in report}
    assert not {case.question for case in tune} & {case.question for case in report}
    assert all(case.paraphrase and case.reason for case in tune + report)
