"""Working memory: per-person, per-thread facts, bounded, expiring, erasable per person."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory.working import WorkingMemory


class Clock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.mark.parametrize(
    ("notes", "seen"),
    [
        pytest.param(
            [("C1:100.1", "service", "billing", "U1"), ("C1:200.2", "service", "search", "U2")],
            [
                ("C1:100.1", "U1", {"service": "billing"}),
                ("C1:200.2", "U2", {"service": "search"}),
                ("C1:300.3", "U1", {}),
            ],
            id="per-thread",
        ),
        pytest.param(
            [
                ("C1:5.5", "recall_my_memories", "Alice's 👎 and lesson", "U1"),
                ("C1:5.5", "lookup_user", "Carol", "U2"),
            ],
            [
                ("C1:5.5", "U2", {"lookup_user": "Carol"}),
                ("C1:5.5", "U1", {"recall_my_memories": "Alice's 👎 and lesson"}),
            ],
            id="one-persons-never-shown-in-another-persons-turn",
        ),
    ],
)
def test_notes_are_kept_per_thread_and_person(
    clock: Clock,
    notes: list[tuple[str, str, str, str]],
    seen: list[tuple[str, str, dict[str, str]]],
) -> None:
    """Each (thread, user, value) written is seen in that thread by that person alone."""
    memory = WorkingMemory(clock=clock)
    for thread, key, value, user in notes:
        memory.put(thread, key, value, user_id=user, started_at=clock.now)

    for thread, user, facts in seen:
        assert memory.facts(thread, user_id=user) == facts, (thread, user)


def test_a_new_value_replaces_the_old_one(clock: Clock) -> None:
    memory = WorkingMemory(clock=clock)
    memory.put("t", "branch", "main", user_id="U1", started_at=clock.now)
    memory.put("t", "branch", "release-2", user_id="U1", started_at=clock.now)

    assert memory.facts("t", user_id="U1") == {"branch": "release-2"}


def test_the_least_recently_used_key_makes_room(clock: Clock) -> None:
    memory = WorkingMemory(max_keys_per_thread=2, clock=clock)
    memory.put("t", "a", "1", user_id="U1", started_at=clock.now)
    memory.put("t", "b", "2", user_id="U1", started_at=clock.now)
    memory.put("t", "a", "1", user_id="U1", started_at=clock.now)  # "b" is now the oldest
    memory.put("t", "c", "3", user_id="U1", started_at=clock.now)

    assert memory.facts("t", user_id="U1") == {"a": "1", "c": "3"}


def test_the_least_recently_used_thread_makes_room(clock: Clock) -> None:
    memory = WorkingMemory(max_threads=2, clock=clock)
    memory.put("t1", "k", "1", user_id="U1", started_at=clock.now)
    memory.put("t2", "k", "2", user_id="U1", started_at=clock.now)
    memory.facts("t1", user_id="U1")  # "t2" is now the least recently used
    memory.put("t3", "k", "3", user_id="U1", started_at=clock.now)

    assert len(memory) == 2
    assert memory.facts("t2", user_id="U1").get("k") is None
    assert memory.facts("t1", user_id="U1").get("k") == "1"
    assert memory.facts("t3", user_id="U1").get("k") == "3"


def test_long_values_and_keys_are_cut(clock: Clock) -> None:
    memory = WorkingMemory(max_value_chars=20, max_key_chars=10, clock=clock)
    memory.put(
        "t",
        "a very long key indeed",
        "line one\nline two " + "x" * 100,
        user_id="U1",
        started_at=clock.now,
    )

    [(key, value)] = memory.facts("t", user_id="U1").items()
    assert len(key) <= 10
    assert len(value) == 20
    assert value.startswith("line one\nline two")
    assert value.endswith("…")


def test_a_thread_unused_for_the_ttl_expires(clock: Clock) -> None:
    memory = WorkingMemory(ttl=timedelta(minutes=30), clock=clock)
    memory.put("quiet", "k", "v", user_id="U1", started_at=clock.now)
    memory.put("busy", "k", "v", user_id="U1", started_at=clock.now)
    clock.advance(timedelta(minutes=20))
    memory.facts("busy", user_id="U1")
    clock.advance(timedelta(minutes=20))

    assert memory.facts("quiet", user_id="U1").get("k") is None
    assert memory.facts("busy", user_id="U1").get("k") == "v"
    assert len(memory) == 1


def test_forget_user_drops_the_persons_notes_and_nobody_elses(clock: Clock) -> None:
    memory = WorkingMemory(clock=clock)
    memory.put("shared", "k", "mine", user_id="U1", started_at=clock.now)
    memory.put("shared", "k", "theirs", user_id="U2", started_at=clock.now)
    memory.put("mine", "k", "v", user_id="U1", started_at=clock.now)

    assert memory.forget_user("U1") == 2
    assert memory.facts("shared", user_id="U1") == {}
    assert memory.facts("mine", user_id="U1") == {}
    assert memory.facts("shared", user_id="U2") == {"k": "theirs"}


def test_a_turn_that_started_before_forget_cannot_write_notes_after_it(clock: Clock) -> None:
    memory = WorkingMemory(clock=clock)
    started = clock.now
    clock.advance(timedelta(seconds=1))
    memory.forget_user("U1")
    clock.advance(timedelta(seconds=1))

    assert not memory.put("t", "k", "from before", user_id="U1", started_at=started)
    assert memory.facts("t", user_id="U1") == {}
    assert memory.put("t", "k", "after", user_id="U1", started_at=clock.now)
    assert memory.put("t", "k", "other person", user_id="U2", started_at=started)


def test_a_forget_handled_elsewhere_drops_what_turns_before_it_noted(clock: Clock) -> None:
    """Another replica (or the admin CLI) forgot U1: this process learns when from the
    store, and keeps only what turns begun after it noted."""
    memory = WorkingMemory(clock=clock)
    memory.put("t", "before", "from before", user_id="U1", started_at=clock.now)
    memory.put("t", "theirs", "U2's", user_id="U2", started_at=clock.now)
    clock.advance(timedelta(seconds=1))
    forgotten_elsewhere = clock.now
    clock.advance(timedelta(seconds=1))
    memory.put("t", "after", "from after", user_id="U1", started_at=clock.now)

    assert memory.facts("t", user_id="U1", forgotten_at=forgotten_elsewhere) == {
        "after": "from after"
    }
    assert memory.facts("t", user_id="U1") == {"after": "from after"}, "dropped, not hidden"
    assert memory.facts("t", user_id="U2") == {"theirs": "U2's"}


def test_reading_an_unknown_thread_creates_nothing(clock: Clock) -> None:
    memory = WorkingMemory(clock=clock)
    assert memory.facts("nothing", user_id="U1") == {}
    assert memory.facts("nothing", user_id="U1").get("k") is None
    assert len(memory) == 0


def test_forgetting_a_workspaces_threads_drops_them_and_fences_its_turns_in_flight(
    clock: Clock,
) -> None:
    memory = WorkingMemory(clock=clock)
    started = clock.now
    memory.put("T1/D1:top", "host", "vault-7", user_id="U1", started_at=started)
    memory.put("T2/D1:top", "host", "db-3", user_id="U1", started_at=started)
    clock.advance(timedelta(seconds=1))

    assert memory.forget_threads("T1/") == 1
    assert memory.facts("T1/D1:top", user_id="U1") == {}
    assert memory.facts("T2/D1:top", user_id="U1") == {"host": "db-3"}
    assert not memory.put("T1/D1:top", "late", "x", user_id="U1", started_at=started)
    clock.advance(timedelta(seconds=1))
    assert memory.put("T1/D1:top", "new", "y", user_id="U1", started_at=clock.now)
