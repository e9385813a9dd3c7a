"""A checker for Slack's Block Kit limits: every way a payload breaks one (tests only)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from bot.views.limits import (
    ACTION_ID_LIMIT,
    ACTIONS_ELEMENTS_LIMIT,
    BLOCK_ID_LIMIT,
    BLOCKS_PER_SURFACE,
    BUTTON_TEXT_LIMIT,
    BUTTON_VALUE_LIMIT,
    CONFIRM_BUTTON_LIMIT,
    CONFIRM_TEXT_LIMIT,
    CONFIRM_TITLE_LIMIT,
    CONTEXT_ACTIONS_ELEMENTS_LIMIT,
    CONTEXT_ELEMENTS_LIMIT,
    HEADER_TEXT_LIMIT,
    INPUT_LABEL_LIMIT,
    MODAL_TITLE_LIMIT,
    PLACEHOLDER_LIMIT,
    SECTION_TEXT_LIMIT,
    TEXT_INPUT_LIMIT,
)

__all__ = ["block_kit_problems", "modal_problems"]


def modal_problems(view: Mapping[str, Any]) -> list[str]:
    """Every way a modal view breaks a Block Kit limit (its title and buttons, then its
    blocks, as :func:`block_kit_problems`); [] if none."""
    problems: list[str] = []
    if view.get("type") != "modal":
        problems.append("not a modal")
    for field in ("title", "submit", "close"):
        if field in view or field == "title":
            problems += [
                f"{field}: {p}"
                for p in _text_problems(view.get(field), MODAL_TITLE_LIMIT, plain_only=True)
            ]
    return problems + block_kit_problems(view.get("blocks") or [])


def block_kit_problems(blocks: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every way ``blocks`` (of one message or view) breaks a Block Kit limit; [] if none."""
    problems: list[str] = []
    if len(blocks) > BLOCKS_PER_SURFACE:
        problems.append(f"{len(blocks)} blocks, more than {BLOCKS_PER_SURFACE}")
    block_ids = [block["block_id"] for block in blocks if "block_id" in block]
    if len(block_ids) != len(set(block_ids)):
        problems.append("duplicate block_id")
    for index, block in enumerate(blocks):
        problems += [f"block {index} ({block.get('type')}): {p}" for p in _block_problems(block)]
    return problems


def _block_problems(block: Mapping[str, Any]) -> Iterator[str]:
    kind = block.get("type")
    yield from _too_long(block, "block_id", BLOCK_ID_LIMIT)
    if kind == "section":
        if "text" not in block and "fields" not in block:
            yield "a section needs text or fields"
        if "text" in block:
            yield from _text_problems(block["text"], SECTION_TEXT_LIMIT)
        if "accessory" in block:
            yield from _element_problems(block["accessory"])
    elif kind == "header":
        yield from _text_problems(block.get("text"), HEADER_TEXT_LIMIT, plain_only=True)
    elif kind == "context":
        elements = block.get("elements") or []
        if not 1 <= len(elements) <= CONTEXT_ELEMENTS_LIMIT:
            yield f"a context needs 1 to {CONTEXT_ELEMENTS_LIMIT} elements"
        for element in elements:
            yield from _text_problems(element, SECTION_TEXT_LIMIT)
    elif kind in ("actions", "context_actions"):
        limit = ACTIONS_ELEMENTS_LIMIT if kind == "actions" else CONTEXT_ACTIONS_ELEMENTS_LIMIT
        elements = block.get("elements") or []
        if not 1 <= len(elements) <= limit:
            yield f"{kind} needs 1 to {limit} elements"
        action_ids = [element.get("action_id") for element in elements]
        if len(action_ids) != len(set(action_ids)):
            yield "duplicate action_id in one block"
        for element in elements:
            yield from _element_problems(element)
    elif kind == "input":
        yield from _text_problems(block.get("label"), INPUT_LABEL_LIMIT, plain_only=True)
        yield from _input_problems(block.get("element") or {})
    elif kind != "divider":
        yield "a block type these views do not use"


def _input_problems(element: Mapping[str, Any]) -> Iterator[str]:
    yield from _too_long(element, "action_id", ACTION_ID_LIMIT)
    if element.get("type") != "plain_text_input":
        yield f"an input element type these views do not use: {element.get('type')}"
    if not 1 <= int(element.get("max_length", TEXT_INPUT_LIMIT)) <= TEXT_INPUT_LIMIT:
        yield f"max_length outside 1 to {TEXT_INPUT_LIMIT}"
    if "placeholder" in element:
        yield from _text_problems(element["placeholder"], PLACEHOLDER_LIMIT, plain_only=True)


def _element_problems(element: Mapping[str, Any]) -> Iterator[str]:
    kind = element.get("type")
    yield from _too_long(element, "action_id", ACTION_ID_LIMIT)
    if kind == "button":
        yield from _button_problems(element)
        if "confirm" in element:
            yield from _confirm_problems(element["confirm"])
    elif kind == "feedback_buttons":
        for side in ("positive_button", "negative_button"):
            if side not in element:
                yield f"feedback_buttons without {side}"
            else:
                yield from _button_problems(element[side])
    else:
        yield f"an element type these views do not use: {kind}"


def _button_problems(button: Mapping[str, Any]) -> Iterator[str]:
    yield from _text_problems(button.get("text"), BUTTON_TEXT_LIMIT, plain_only=True)
    yield from _too_long(button, "value", BUTTON_VALUE_LIMIT)


def _confirm_problems(confirm: Mapping[str, Any]) -> Iterator[str]:
    yield from _text_problems(confirm.get("title"), CONFIRM_TITLE_LIMIT, plain_only=True)
    yield from _text_problems(confirm.get("text"), CONFIRM_TEXT_LIMIT)
    yield from _text_problems(confirm.get("confirm"), CONFIRM_BUTTON_LIMIT, plain_only=True)
    yield from _text_problems(confirm.get("deny"), CONFIRM_BUTTON_LIMIT, plain_only=True)


def _text_problems(text: Any, limit: int, *, plain_only: bool = False) -> Iterator[str]:
    if not isinstance(text, Mapping) or not isinstance(text.get("text"), str):
        yield "a text object is missing"
        return
    allowed = ("plain_text",) if plain_only else ("plain_text", "mrkdwn")
    if text.get("type") not in allowed:
        yield f"text of type {text.get('type')!r} where {' or '.join(allowed)} is required"
    if not text["text"]:
        yield "empty text"
    if len(text["text"]) > limit:
        yield f"text of {len(text['text'])} characters, more than {limit}"


def _too_long(item: Mapping[str, Any], field: str, limit: int) -> Iterator[str]:
    value = item.get(field)
    if value is not None and len(str(value)) > limit:
        yield f"{field} of {len(str(value))} characters, more than {limit}"
