"""Does a vote change what a real model answers next? Measured through the real bot.

    python benchmarks/learning.py --split tune|report [--base-url URL] [--model NAME]

Needs an OpenAI-compatible server with a real model: ``benchmarks/local_model.py serve``
starts one (llama.cpp, Qwen2.5-Coder-0.5B-Instruct). Never run by ``run.py`` or the tests.

Each case of ``data/learning_cases.jsonl`` (an everyday workplace question, a paraphrase of
it, and a plausible reason to 👎 the answer; written for this benchmark, in a ``tune`` and a
``report`` split) is asked by one new person per arm, in their DM, through the real HTTP
server with signed requests against the fake Slack and a real SQLite file:

- ``control`` and ``control_again`` never vote (two runs of the same arm: the noise floor);
- ``down`` reacts 👎 to the first answer; ``down_reason`` 👎 and replies in the answer's
  thread with the reason, which the bot keeps with the 👎 and drafts the lesson from;
  ``up`` reacts 👍.

After the vote (and, for a 👎, once its lesson is written) the same person asks the paraphrase
at the top of their DM: a new conversation. The later answer *repeats* the first when it gives
one of its commands again or has ROUGE-L ≥ 0.5 with it (:func:`bot.assistant.similarity.repeats`);
for ``up`` that is the answer kept. It is *usable* unless it refuses, writes a tool call as
text, is a notice rather than an answer, or quotes what only the bot should read: the
instructions, the experience section or the draft review (a run of 8 words or more), or their
markers. The person's own words are theirs to read back (their questions, the reason they
gave), and so is the earlier answer. Requests are sent at temperature 0 with a fixed seed
(``LLM_TEMPERATURE``, ``LLM_SEED``), so a run repeats. Every answer, lesson and prompt goes to
``$TMPDIR/reaction-memory-bot-bench/learning-<split>-<label>.jsonl``.
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import re
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make the project importable
    sys.path.insert(0, str(ROOT))

from pydantic import BaseModel  # noqa: E402

from benchmarks.harness import BENCH_DIR, Figure, Target, bot_under_test  # noqa: E402
from bot.agent import EMPTY_REPLY_TEXT, NARROW_DOWN_TEXT  # noqa: E402
from bot.answering.service import MODEL_UNAVAILABLE, SOMETHING_WENT_WRONG  # noqa: E402
from bot.assistant import SYSTEM_PROMPT, default_tools  # noqa: E402
from bot.assistant.lesson_evaluator import (  # noqa: E402
    NO_OTHER_ANSWER,
    NO_OTHER_ANSWER_GIVEN_REASON,
)
from bot.assistant.similarity import repeats, rouge_l  # noqa: E402
from bot.simulator.recording_proxy import RecordingProxy, Replies  # noqa: E402
from memory import Episode, EpisodeStatus  # noqa: E402
from tests.support.harness import SignedSlack  # noqa: E402

__all__ = [
    "Arm",
    "Case",
    "Outcome",
    "figures",
    "load_cases",
    "main",
    "measure",
    "own_words",
    "usability_problems",
]

CASES = Path(__file__).resolve().parent / "data" / "learning_cases.jsonl"
SEED = 20261126
ANSWER_SECONDS = 900.0
LESSON_SECONDS = 900.0
ECHO_WORDS = 8
INTERNAL_MARKERS = (
    "past experience",
    "validated by",
    "lesson:",
    "problem:",
    "suggestion:",
    "draft answer",
    "was reviewed",
    "marked 👎",
    "marked 👍",
    "rejected answer",
    "approved answer",
    "did not work:",
    "worked:",
)
_REFUSAL = re.compile(
    r"\b(?:I'?m sorry|I am sorry|I can(?:'|no)t (?:help|assist|provide|answer)|"
    r"I(?:'m| am) (?:unable|not able) to|as an AI)\b",
    re.IGNORECASE,
)
_ASKED_OPENING = "What I suggested when you asked this before"
"""How both of the bot's questions instead of a repeated 👎 answer open."""
assert NO_OTHER_ANSWER.startswith(_ASKED_OPENING)
assert NO_OTHER_ANSWER_GIVEN_REASON.startswith(_ASKED_OPENING)
_TOKEN = re.compile(r"\w+")
_NOTICES = (EMPTY_REPLY_TEXT, NARROW_DOWN_TEXT, MODEL_UNAVAILABLE, SOMETHING_WENT_WRONG)


class Arm(StrEnum):
    CONTROL = "control"
    CONTROL_AGAIN = "control_again"
    DOWN = "down"
    DOWN_REASON = "down_reason"
    UP = "up"


_REACTIONS = {Arm.DOWN: "-1", Arm.DOWN_REASON: "-1", Arm.UP: "+1"}


class Case(BaseModel):
    id: str
    split: str
    question: str
    paraphrase: str
    reason: str


class Outcome(BaseModel):
    """What one person of one arm got, and how it is judged."""

    case: str
    arm: Arm
    first: str
    later: str
    lesson: str | None = None
    reason: str | None = None
    """The reason the bot kept for the 👎 (``down_reason``: the person's reply)."""
    repeated: bool
    rouge_l: float
    problems: list[str]
    prompt: list[dict[str, Any]]
    """The messages of the model's requests for the later answer (redrafts included)."""


def load_cases(split: str, path: Path = CASES) -> list[Case]:
    cases = [Case.model_validate_json(line) for line in path.read_text().splitlines() if line]
    return [case for case in cases if case.split == split]


def _tool_names() -> list[str]:
    return [tool.name for tool in default_tools()]


def _internal_texts(requests: Sequence[dict[str, Any]]) -> list[str]:
    """What only the bot should read in the requests: the system messages, and the user
    messages the bot itself wrote (draft reviews, nudges): those after the model's first
    reply."""
    texts = [SYSTEM_PROMPT]
    for request in requests:
        messages = request["messages"]
        for index, message in enumerate(messages):
            content = message.get("content") or ""
            if message["role"] == "system" or (
                message["role"] == "user"
                and any(earlier["role"] == "assistant" for earlier in messages[:index])
            ):
                texts.append(content)
    return texts


def _runs(text: str) -> set[tuple[str, ...]]:
    """The runs of :data:`ECHO_WORDS` words of a text (lowercased)."""
    tokens = _TOKEN.findall(text.lower())
    return {tuple(tokens[i : i + ECHO_WORDS]) for i in range(len(tokens) - ECHO_WORDS + 1)}


def usability_problems(
    answer: str, requests: Sequence[dict[str, Any]], *, own: Sequence[str] = ()
) -> list[str]:
    """Why an answer is not usable (empty when it is). ``own`` are texts the answer may
    quote although the prompt holds them too (see :func:`own_words`)."""
    problems = []
    if not answer.strip() or any(notice in answer for notice in _NOTICES):
        problems.append("a notice, not an answer")
    if _REFUSAL.search(answer):
        problems.append("refuses")
    lowered = answer.lower()
    if "<tool_call>" in lowered or any(re.search(rf"\b{name}\b", answer) for name in _tool_names()):
        problems.append("a tool call written as text")
    markers = [marker for marker in INTERNAL_MARKERS if marker in lowered]
    if markers:
        problems.append(f"internal markers {markers}")
    internal = set().union(*map(_runs, _internal_texts(requests)))
    allowed = set().union(*map(_runs, own))
    if quoted := (_runs(answer) & internal) - allowed:
        problems.append(f"quotes the bot's internal text ({' '.join(min(quoted))} ...)")
    return problems


class _Runner:
    def __init__(self, bench: SignedSlack, proxy: RecordingProxy) -> None:
        self.slack = bench
        self.proxy = proxy

    async def run(self, number: int, case: Case, arm: Arm) -> Outcome:
        replies = self.proxy.replies
        if arm is Arm.CONTROL_AGAIN:
            self.proxy.replies = None  # the noise floor: the model answers again
        try:
            return await self._run(number, case, arm)
        finally:
            self.proxy.replies = replies

    async def _run(self, number: int, case: Case, arm: Arm) -> Outcome:
        person = f"U{list(Arm).index(arm)}{number:04d}{case.id[:4].upper()}"
        first = await self.slack.ask_in_dm(case.question, user=person, within=ANSWER_SECONDS)
        if arm in _REACTIONS:
            await self.slack.vote(first, user=person, reaction=_REACTIONS[arm])
        if arm is Arm.DOWN_REASON:
            await self.slack.reply_in_thread(first, case.reason, user=person, within=ANSWER_SECONDS)
        episodes = await self._validated(
            person, lesson=arm in (Arm.DOWN, Arm.DOWN_REASON), reason=arm is Arm.DOWN_REASON
        )
        asked = len(self.proxy.requests)
        later = await self.slack.ask_in_dm(case.paraphrase, user=person, within=ANSWER_SECONDS)
        requests = self.proxy.requests[asked:]
        reason = next((e.reason for e in episodes if e.reason), None)
        return Outcome(
            case=case.id,
            arm=arm,
            first=first.text,
            later=later.text,
            lesson=next((e.lesson for e in episodes if e.lesson), None),
            reason=reason,
            repeated=repeats(later.text, first.text),
            rouge_l=round(rouge_l(later.text, first.text), 3),
            problems=usability_problems(
                later.text, requests, own=own_words(case, first.text, reason)
            ),
            prompt=[{"messages": request["messages"]} for request in requests],
        )

    async def _validated(self, person: str, *, lesson: bool, reason: bool) -> list[Episode]:
        """The person's validated episodes, once a 👎's lesson is written (with the
        person's reason, when they gave one: the reason sends the lesson back to be
        drafted again)."""
        memory = self.slack.services.memory
        deadline = time.monotonic() + LESSON_SECONDS
        while True:
            episodes = await memory.list_episodes(person)
            failures = [e for e in episodes if e.status is EpisodeStatus.FAILURE]
            ready = all(e.lesson and (e.reason or not reason) for e in failures)
            if not lesson or ready or time.monotonic() > deadline:
                return episodes
            await asyncio.sleep(0.5)


def own_words(case: Case, first: str, reason: str | None) -> list[str]:
    """What a later answer may quote although the prompt holds it: the person's own words
    (their questions, and the reason they gave for a 👎: "you said: …" is no leak) and the
    bot's earlier answer (a 👍 answer is meant to be given again)."""
    return [case.question, case.paraphrase, first, *([reason] if reason else [])]


def _rate(outcomes: Sequence[Outcome], arm: Arm, *, usable: bool = False) -> tuple[int, int]:
    mine = [outcome for outcome in outcomes if outcome.arm is arm]
    hits = sum(1 for o in mine if (not o.problems if usable else o.repeated))
    return hits, len(mine)


def _share(name: str, hits: int, total: int, why: str = "") -> Figure:
    return Figure(
        name=name, value=round(hits / total, 3), unit="share", detail=f"{hits} of {total}{why}"
    )


def figures(outcomes: Sequence[Outcome], split: str) -> list[Figure]:
    lines = []
    arms = [arm for arm in Arm if any(outcome.arm is arm for outcome in outcomes)]
    for arm in arms:
        word = "keep" if arm is Arm.UP else "repeat"
        lines.append(_share(f"learning_{word}_rate_{arm.value}_{split}", *_rate(outcomes, arm)))
    for arm in arms:
        hits, total = _rate(outcomes, arm, usable=True)
        lines.append(_share(f"learning_usable_share_{arm.value}_{split}", hits, total))
    for arm in arms:
        mine = [outcome for outcome in outcomes if outcome.arm is arm]
        asked = sum(1 for outcome in mine if _asks_instead(outcome.later))
        if asked:
            lines.append(
                _share(
                    f"learning_asked_instead_share_{arm.value}_{split}",
                    asked,
                    len(mine),
                    ": every draft repeated the 👎 answer or copied its lesson, so the person"
                    " was asked what went wrong (counted usable, not a repeat)",
                )
            )
    control, total = _rate(outcomes, Arm.CONTROL)
    again, _ = _rate(outcomes, Arm.CONTROL_AGAIN)
    if Arm.CONTROL_AGAIN in arms:
        pairs = _pairs(outcomes, Arm.CONTROL, Arm.CONTROL_AGAIN)
        same = sum(1 for a, b in pairs if a.later == b.later and a.first == b.first)
        disagree = sum(1 for a, b in pairs if a.repeated != b.repeated)
        lines.append(
            Figure(
                name=f"learning_noise_floor_{split}",
                value=round(abs(control - again) / total, 3),
                unit="share",
                detail=f"control repeats {control} of {total}, run again {again}; the two "
                f"runs disagree on {disagree} case(s); {same} answer pairs identical",
            )
        )
    for arm in (Arm.DOWN, Arm.DOWN_REASON):
        if arm in arms:
            hits, _ = _rate(outcomes, arm)
            lines.append(
                Figure(
                    name=f"learning_repeat_vs_control_{arm.value}_{split}",
                    value=round(hits / control, 3) if control else float(hits > 0),
                    unit="x",
                    detail=f"{hits} against the control's {control}",
                    target=Target.at_most(0.5),
                )
            )
    if Arm.UP in arms:
        hits, _ = _rate(outcomes, Arm.UP)
        lines.append(
            Figure(
                name=f"learning_keep_minus_control_up_{split}",
                value=round((hits - control) / total, 3),
                unit="share",
                detail=f"{hits} kept against the control's {control}",
                target=Target.at_least(0.001),
            )
        )
    return lines


def _asks_instead(answer: str) -> bool:
    """Whether the answer is the bot's question instead of an answer repeating a 👎 one
    or its lesson."""
    return answer.startswith(_ASKED_OPENING)


def _pairs(outcomes: Sequence[Outcome], one: Arm, other: Arm) -> list[tuple[Outcome, Outcome]]:
    by_case = {o.case: o for o in outcomes if o.arm is other}
    return [(o, by_case[o.case]) for o in outcomes if o.arm is one and o.case in by_case]


async def measure(
    cases: Sequence[Case],
    arms: Sequence[Arm],
    *,
    base_url: str,
    model: str,
    max_tokens: int,
    replies: Replies | None = None,
    transcript: Path | None = None,
) -> list[Outcome]:
    """Every case through every arm; each outcome is also appended to ``transcript`` as it
    comes (a long run cut short keeps what it measured)."""
    settings = {
        "llm_model": model,
        "llm_temperature": 0.0,
        "llm_seed": SEED,
        "llm_max_tokens": max_tokens,
        "llm_timeout_seconds": ANSWER_SECONDS,
        "max_concurrent_llm_calls": 1,
    }
    outcomes = []
    async with (
        RecordingProxy(base_url, replies=replies) as proxy,
        bot_under_test(settings={**settings, "llm_base_url": proxy.base_url}) as bot,
    ):
        runner = _Runner(bot.slack, proxy)
        for number, case in enumerate(cases):
            for arm in arms:
                started = time.monotonic()
                outcome = await runner.run(number, case, arm)
                outcomes.append(outcome)
                if transcript is not None:
                    _append(transcript, outcome)
                print(
                    f"# {case.id} {arm.value}: repeated={outcome.repeated} "
                    f"rouge_l={outcome.rouge_l} problems={outcome.problems} "
                    f"({time.monotonic() - started:.0f} s)",
                    flush=True,
                )
    return outcomes


def rescored(transcript: Path) -> list[Outcome]:
    """The outcomes of a transcript, judged again by the current measures."""
    cases = {case.id: case for split in ("tune", "report") for case in load_cases(split)}
    outcomes = []
    for line in transcript.read_text().splitlines():
        outcome = Outcome.model_validate_json(line)
        case = cases[outcome.case]
        outcome.repeated = repeats(outcome.later, outcome.first)
        outcome.rouge_l = round(rouge_l(outcome.later, outcome.first), 3)
        outcome.problems = usability_problems(
            outcome.later, outcome.prompt, own=own_words(case, outcome.first, outcome.reason)
        )
        outcomes.append(outcome)
    return outcomes


def _append(transcript: Path, outcome: Outcome) -> None:
    with transcript.open("a") as file:
        file.write(outcome.model_dump_json() + "\n")


@contextmanager
def _kept_replies(path: Path | None) -> Iterator[Replies | None]:
    """The model's replies kept in ``path`` (none without one), written back to it when
    done, a run cut short included."""
    if path is None:
        yield None
        return
    replies: Replies = pickle.loads(path.read_bytes()) if path.exists() else {}
    try:
        yield replies
    finally:
        path.write_bytes(pickle.dumps(replies))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["tune", "report"], required=True)
    parser.add_argument("--base-url", default="http://127.0.0.1:8081/v1")
    parser.add_argument("--model", default="qwen2.5-coder-0.5b-instruct")
    parser.add_argument("--max-tokens", type=int, default=150)
    parser.add_argument("--cases", type=int, default=0, help="only the first N cases")
    parser.add_argument(
        "--shard", default="1/1", help="K/N: every Nth case from the Kth (runs side by side)"
    )
    parser.add_argument(
        "--reverse", action="store_true", help="the last case first (runs side by side)"
    )
    parser.add_argument("--arms", default=",".join(arm.value for arm in Arm))
    parser.add_argument("--label", default="run", help="names the transcript file")
    parser.add_argument(
        "--rescore",
        type=Path,
        help="judge the answers of an earlier run's transcript again, without the model",
    )
    parser.add_argument(
        "--replies",
        type=Path,
        help="a file of the model's replies, read and extended: a request sent before is "
        "answered from it (for tuning: temperature 0 and the seed make the model repeat)",
    )
    arguments = parser.parse_args(argv)
    if arguments.rescore is not None:
        for figure in figures(rescored(arguments.rescore), arguments.split):
            print(figure.line())
        return
    cases = load_cases(arguments.split)
    if arguments.cases:
        cases = cases[: arguments.cases]
    shard, shards = (int(part) for part in arguments.shard.split("/"))
    cases = cases[shard - 1 :: shards]
    if arguments.reverse:
        cases.reverse()
    arms = [Arm(name) for name in arguments.arms.split(",")]
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    transcript = BENCH_DIR / f"learning-{arguments.split}-{arguments.label}.jsonl"
    transcript.unlink(missing_ok=True)
    with _kept_replies(arguments.replies) as replies:
        outcomes = asyncio.run(
            measure(
                cases,
                arms,
                base_url=arguments.base_url,
                model=arguments.model,
                max_tokens=arguments.max_tokens,
                replies=replies,
                transcript=transcript,
            )
        )
    for figure in figures(outcomes, arguments.split):
        print(figure.line())
    print(f"# transcript: {transcript}")


if __name__ == "__main__":
    main()
