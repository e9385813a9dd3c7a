"""Decode results: success, feedback and error are three distinct values."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, field_validator

from bot.agent import DecodeResult, decode_arguments


class Args(BaseModel):
    city: str
    days: int = 1


class Buggy(BaseModel):
    city: str

    @field_validator("city")
    @classmethod
    def explode(cls, value: str) -> str:
        raise KeyError(value)  # not a ValueError: a bug, not bad input


def test_the_three_states_are_exclusive() -> None:
    success = DecodeResult.success("value")
    feedback: DecodeResult[str] = DecodeResult.feedback("Add more details")
    error: DecodeResult[str] = DecodeResult.error(RuntimeError("parse failed"))

    assert (success.is_success, success.is_feedback, success.is_error) == (True, False, False)
    assert (feedback.is_success, feedback.is_feedback, feedback.is_error) == (False, True, False)
    assert (error.is_success, error.is_feedback, error.is_error) == (False, False, True)
    assert success.value == "value"
    assert feedback.message == "Add more details"
    assert isinstance(error.err, RuntimeError)


def test_valid_arguments_decode_to_the_model() -> None:
    result = decode_arguments('{"days": 3, "city": "Oslo"}', Args)

    assert result.is_success
    assert result.value == Args(city="Oslo", days=3)


def test_empty_arguments_mean_an_empty_object() -> None:
    class NoArgs(BaseModel):
        pass

    assert decode_arguments("", NoArgs).is_success


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"city": "Oslo"', "not valid JSON"),
        ('["Oslo"]', "must be a JSON object, not list"),
        ('{"city": "Oslo", "days": "many"}', "`days`: Input should be a valid integer"),
        ("{}", "`city`: Field required"),
    ],
)
def test_malformed_arguments_are_feedback_not_errors(raw: str, expected: str) -> None:
    result = decode_arguments(raw, Args)

    assert result.is_feedback
    assert expected in result.message


def test_a_validator_bug_is_an_error() -> None:
    result = decode_arguments('{"city": "Oslo"}', Buggy)

    assert result.is_error
    assert isinstance(result.err, KeyError)
