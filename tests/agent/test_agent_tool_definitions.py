"""Tool definitions: the JSON schema is derived once per input model, each turn gets a copy."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from bot.agent import TurnContext, tool


class CountingArgs(BaseModel):
    """Counts how often pydantic is asked for its schema."""

    city: str
    schema_requests: ClassVar[int] = 0

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        cls.schema_requests += 1
        return super().model_json_schema(*args, **kwargs)


@tool(description="Current weather of a city.")
async def weather(ctx: TurnContext, args: CountingArgs) -> str:
    return "sunny"


def test_a_definition_offers_the_input_models_schema_and_derives_it_only_once() -> None:
    before = CountingArgs.schema_requests

    definitions = [weather.definition for _ in range(3)]

    assert CountingArgs.schema_requests - before <= 1
    for definition in definitions:
        assert definition.name == "weather"
        assert definition.parameters == BaseModel.model_json_schema.__func__(CountingArgs)


def test_each_definition_has_its_own_copy_of_the_schema() -> None:
    first = weather.definition
    first.parameters["properties"]["city"]["type"] = "integer"
    first.parameters["required"].clear()

    second = weather.definition

    assert second.parameters["properties"]["city"]["type"] == "string"
    assert second.parameters["required"] == ["city"]
