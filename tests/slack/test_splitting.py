"""Splitting long answers: within the limit, code blocks closed and reopened, nothing lost."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.slack.splitting import PART_LIMIT, CodeFence, open_fence_at, split_message


def content_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and "```" not in line]


def test_a_short_text_is_one_part() -> None:
    assert split_message("hello") == ["hello"]


def test_an_empty_text_is_one_empty_part() -> None:
    assert split_message("") == [""]


def test_a_split_prefers_a_paragraph_break() -> None:
    first = "a" * 60
    second = "b" * 60
    parts = split_message(f"{first}\n\n{second}", limit=100)
    assert parts == [first, second]


def test_a_line_without_spaces_is_cut_hard_within_the_limit() -> None:
    parts = split_message("x" * 250, limit=100)
    assert all(len(part) <= 100 for part in parts)
    assert "".join(parts) == "x" * 250


def test_a_code_block_is_closed_at_the_split_and_reopened_with_its_language() -> None:
    code = "\n".join(f"line {n}" for n in range(30))
    parts = split_message(f"Intro\n```python\n{code}\n```\nOutro", limit=120)

    assert len(parts) > 2
    for part in parts:
        assert len(part) <= 120
        assert part.count("```") % 2 == 0
    assert parts[1].startswith("```python\n")
    assert parts[0].endswith("\n```")


def test_open_fence_at_tracks_languages_and_inline_blocks() -> None:
    assert open_fence_at("plain") is None
    assert open_fence_at("```sql\nSELECT 1") == CodeFence("sql")
    assert open_fence_at("```\ncode") == CodeFence("")
    assert open_fence_at("```sql\nSELECT 1\n```") is None
    assert open_fence_at("inline ```x``` done") is None


lines = st.text(alphabet=st.sampled_from("abcxyz0123 ,.:;(){}=-_"), max_size=70)
blocks = st.one_of(
    st.lists(lines, min_size=1, max_size=8).map("\n".join),
    st.tuples(st.sampled_from(["", "python", "sql"]), st.lists(lines, max_size=20)).map(
        lambda pair: f"```{pair[0]}\n" + "\n".join(pair[1]) + "\n```"
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(blocks, max_size=12).map("\n\n".join), st.integers(min_value=120, max_value=600))
def test_every_part_fits_balances_its_fences_and_loses_no_line(text: str, limit: int) -> None:
    parts = split_message(text, limit)

    for part in parts:
        assert len(part) <= limit
        assert open_fence_at(part) is None
    joined = "".join(content_lines("\n".join(parts)))
    assert joined.replace(" ", "") == "".join(content_lines(text)).replace(" ", "")


def test_the_default_limit_stays_under_slacks_guidance() -> None:
    assert PART_LIMIT <= 4000
