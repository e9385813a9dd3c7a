"""Declaring tools: one decorated async function with a pydantic input model.

```python
class WeatherArgs(BaseModel):
    city: str

@tool(description="Current weather of a city.")
async def weather(ctx: TurnContext, args: WeatherArgs) -> Weather: ...
```

The JSON schema the model sees is derived from the input model; the output model (if the
return annotation names one) is what the guard validates results against.
"""

from __future__ import annotations

import functools
import inspect
import json
import types
import typing
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from bot.agent.context import TurnContext
from bot.agent.messages import ToolDefinition
from bot.agent.tools.errors import ToolError

__all__ = ["SemanticCheck", "Tool", "ToolFunction", "ToolRegistry", "tool"]

ToolOutput = BaseModel | str | ToolError
ToolFunction = Callable[[Any, Any], Awaitable[ToolOutput]]
"""``(ctx, args)``: ``ctx`` is the application's :class:`TurnContext` (or subclass)."""
SemanticCheck = Callable[[Any], ToolError | None]
"""Given the validated output, return a ToolError (partial_data / semantic_garbage) or None."""

DEFAULT_TIMEOUT_SECONDS = 20.0


@functools.cache
def _parameters_schema(input_model: type[BaseModel]) -> str:
    """The JSON schema of an input model, as text, derived once: pydantic takes about half
    a millisecond per model and every turn offers every tool (each definition then gets
    its own copy, parsed from this text)."""
    return json.dumps(input_model.model_json_schema())


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    function: ToolFunction
    input_model: type[BaseModel]
    output_model: type[BaseModel] | None = None
    side_effects: bool = False
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    validate_semantics: SemanticCheck | None = None

    @property
    def definition(self) -> ToolDefinition:
        return ToolDefinition(
            name=self.name,
            description=self.description,
            parameters=json.loads(_parameters_schema(self.input_model)),
        )

    async def __call__(self, ctx: TurnContext, args: BaseModel) -> ToolOutput:
        return await self.function(ctx, args)


def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    side_effects: bool = False,
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
    validate_semantics: SemanticCheck | None = None,
) -> Callable[[ToolFunction], Tool]:
    """Turn ``async def fn(ctx: TurnContext, args: InputModel) -> Output | str`` into a Tool.

    ``name`` defaults to the function's name and ``description`` to its docstring.
    ``side_effects=True`` lowers the per-turn retry budget of identical calls to one.
    """
    if timeout_seconds <= 0:
        raise ValueError("timeout_seconds must be positive")

    def decorate(function: ToolFunction) -> Tool:
        if not inspect.iscoroutinefunction(function):
            raise TypeError(f"tool {function.__name__!r} must be an async function")
        try:
            hints = typing.get_type_hints(function)
        except NameError as exc:
            raise TypeError(
                f"tool {function.__name__!r}: define its models at module level ({exc})"
            ) from exc
        parameters = list(inspect.signature(function).parameters)
        if len(parameters) != 2:
            raise TypeError(f"tool {function.__name__!r} must take (ctx, args)")
        input_model = hints.get(parameters[1])
        if not (isinstance(input_model, type) and issubclass(input_model, BaseModel)):
            raise TypeError(f"tool {function.__name__!r}: args must be annotated with a model")
        text = description or inspect.getdoc(function)
        if not text:
            raise ValueError(f"tool {function.__name__!r} needs a description or docstring")
        return Tool(
            name=name or function.__name__,
            description=text,
            function=function,
            input_model=input_model,
            output_model=_output_model(hints.get("return")),
            side_effects=side_effects,
            timeout_seconds=timeout_seconds,
            validate_semantics=validate_semantics,
        )

    return decorate


def _output_model(annotation: object) -> type[BaseModel] | None:
    """The one pydantic model (other than ToolError) named by a return annotation."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        candidates: Iterable[object] = typing.get_args(annotation)
    else:
        candidates = (annotation,)
    models = [
        candidate
        for candidate in candidates
        if isinstance(candidate, type)
        and issubclass(candidate, BaseModel)
        and candidate is not ToolError
    ]
    return models[0] if len(models) == 1 else None


class ToolRegistry:
    """The tools offered for a turn, by name."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for item in tools:
            if item.name in self._tools:
                raise ValueError(f"two tools are named {item.name!r}")
            self._tools[item.name] = item

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        return sorted(self._tools)

    def definitions(self) -> list[ToolDefinition]:
        return [item.definition for item in self._tools.values()]

    def __len__(self) -> int:
        return len(self._tools)
