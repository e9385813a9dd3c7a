"""The small protocols callers depend on: each is a part of what every backend offers."""

from __future__ import annotations

import inspect

import pytest

from memory import callers
from memory.sqlite import SQLiteMemoryStore
from memory.store import MemoryStore

PROTOCOLS = [
    protocol
    for protocol in vars(callers).values()
    if isinstance(protocol, type) and protocol.__module__ == callers.__name__
]


def members(protocol: type) -> set[str]:
    return {
        name
        for klass in protocol.__mro__
        if klass.__module__ == callers.__name__
        for name in vars(klass)
        if not name.startswith("_")
    }


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda p: p.__name__)
def test_every_protocol_is_a_slice_of_the_store_with_the_same_signatures(protocol: type) -> None:
    assert members(protocol), "a protocol names what its caller uses"
    for name in members(protocol):
        expected = getattr(protocol, name)
        for backend in (MemoryStore, SQLiteMemoryStore):
            actual = getattr(backend, name)
            if isinstance(expected, property):
                assert isinstance(actual, property), (backend, name)
                continue
            assert list(inspect.signature(actual).parameters) == list(
                inspect.signature(expected).parameters
            ), (backend, name)


def test_no_protocol_is_the_whole_store() -> None:
    whole = {name for name in dir(MemoryStore) if not name.startswith("_")}
    for protocol in PROTOCOLS:
        assert len(members(protocol)) <= len(whole) // 3, protocol.__name__
