"""Whether a reply after a 👎 asks something (answered) or only says what was wrong."""

from __future__ import annotations

import pytest

from bot.assistant.reasons import asks_question


@pytest.mark.parametrize(
    "text",
    [
        "that wiped out my uncommitted changes",
        "Wrong command. It deleted my branch",
        "do not use --hard, it lost my work",
        "it's for Windows, not Linux",
        "",
    ],
)
def test_a_reply_that_only_says_what_was_wrong_asks_nothing(text: str) -> None:
    assert not asks_question(text)


@pytest.mark.parametrize(
    "text",
    [
        "that wiped out my changes, can I get them back?",
        "that wiped out my changes. How do I get them back",
        "Please show the Windows version",
        "try again without --hard",
        "wrong OS!\nexplain it for macOS",
        "What about Windows",
    ],
)
def test_a_reply_with_a_question_or_a_request_asks_something(text: str) -> None:
    assert asks_question(text)
