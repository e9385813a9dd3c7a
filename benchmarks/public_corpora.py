"""The public corpora of long conversations that ``recall_public.py`` measures recall on.

Each corpus becomes the same thing (:class:`Corpus`): each person's exchanges, in order,
with their own times, and labelled questions whose evidence names exchanges. Both are
vendored in ``benchmarks/data/`` with their licences (no network is needed):

- **MemoryBank** (``data/memorybank/``, MIT; github.com/zhongwanjun/MemoryBank-SiliconFriend
  at cf61c41, ``eval_data/en``): 15 people each chatting with an AI companion over 10 days
  (566 exchanges), then asked 100 probing questions; the evidence of each was labelled by
  hand for this benchmark (``evidence_en.jsonl``; one question, about a day missing from
  the history, has none and is left out). The first seven people are the tune split.
- **LoCoMo** (``data/locomo/locomo10.zip``, CC BY-NC 4.0; github.com/snap-research/locomo
  at e76cdff, unchanged): ten very long conversations between two people (19 to 32
  sessions over months, 5,882 turns), with 1,986 questions annotated by the authors with
  the turns that answer them and a category (multi-hop, temporal, open-domain,
  single-hop, adversarial). The questions seldom repeat the words of the turns that
  answer them, and a multi-hop question needs turns from several sessions. Consecutive
  turns of a session become one exchange (the first as the question, the reply as the
  answer, each prefixed with its speaker's name; a shared photo as its caption), so an
  exchange holds two turns, as a MemoryBank one does. Adversarial questions (about
  something the other speaker said: no answer exists) are left out, as are evidence ids
  that name no turn (9 of them); a question left with none is dropped. The first five
  conversations are the tune split.
"""

from __future__ import annotations

import json
import re
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel

__all__ = [
    "CORPORA",
    "DATA",
    "LOCOMO_CATEGORIES",
    "SPLITS",
    "Corpus",
    "Exchange",
    "Question",
    "load",
    "locomo",
    "memorybank",
]

DATA = Path(__file__).resolve().parent / "data"
SPLITS = ("report", "tune")
"""Settings are chosen on ``tune`` only; ``report`` is what is reported."""


class Exchange(BaseModel):
    """One past exchange of a person: its label (what evidence names), when, and text."""

    label: str
    at: datetime
    question: str
    answer: str


class Question(BaseModel):
    """A later question of a person and the labels of the exchanges that answer it."""

    person: str
    question: str
    evidence: list[str]
    split: str
    category: str = ""


class Corpus(BaseModel):
    name: str
    histories: dict[str, list[Exchange]]
    questions: list[Question]

    @property
    def asked_at(self) -> datetime:
        """When every question is asked: a day and a half after the last exchange."""
        last = max(e.at for exchanges in self.histories.values() for e in exchanges)
        return last + timedelta(days=1, hours=12)


# -- MemoryBank -----------------------------------------------------------------------------

MEMORYBANK = DATA / "memorybank"


def memorybank() -> Corpus:
    raw = json.loads((MEMORYBANK / "memory_bank_en.json").read_text(encoding="utf-8"))
    histories = {
        name.strip(): [
            Exchange(
                label=f"{day}#{index}",
                at=datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC)
                + timedelta(minutes=index),
                question=turn["query"],
                answer=turn["response"],
            )
            for day, exchanges in person["history"].items()
            for index, turn in enumerate(exchanges)
        ]
        for name, person in raw.items()
    }
    lines = (MEMORYBANK / "evidence_en.jsonl").read_text(encoding="utf-8").splitlines()
    questions = [Question.model_validate_json(line) for line in lines]
    return Corpus(
        name="memorybank",
        histories=histories,
        questions=[question for question in questions if question.evidence],
    )


# -- LoCoMo ---------------------------------------------------------------------------------

LOCOMO = DATA / "locomo" / "locomo10.zip"
LOCOMO_TUNE = 5
"""The first five conversations (by file name) are the tune split, the other five the report."""
LOCOMO_CATEGORIES = {
    1: "multi_hop",
    2: "temporal",
    3: "open_domain",
    4: "single_hop",
}
"""The authors' categories (``task_eval/evaluation.py``); 5, adversarial, is left out."""

_SESSION = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D:?(\d+):0*(\d+)")
"""A turn's id as the evidence writes it: ``D8:6``, also ``D:11:26`` and ``D30:05``."""


def _session_start(text: str) -> datetime:
    """``1:56 pm on 8 May, 2023`` as a time."""
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _said(turn: dict[str, object]) -> str:
    caption = turn.get("blip_caption")
    photo = f" [shares {caption}]" if caption else ""
    return f"{turn['speaker']}: {turn['text']}{photo}"


def _conversation(raw: dict[str, object]) -> tuple[list[Exchange], dict[str, str]]:
    """The conversation's exchanges, and the label of the exchange holding each turn."""
    exchanges: list[Exchange] = []
    holder: dict[str, str] = {}
    sessions = sorted(
        (int(match[1]), key) for key in raw if (match := _SESSION.fullmatch(key)) and raw[key]
    )
    for _, key in sessions:
        start = _session_start(str(raw[f"{key}_date_time"]))
        turns: list[dict[str, object]] = raw[key]  # type: ignore[assignment]
        for index in range(0, len(turns), 2):
            pair = turns[index : index + 2]
            label = str(pair[0]["dia_id"])
            exchanges.append(
                Exchange(
                    label=label,
                    at=start + timedelta(minutes=index),
                    question=_said(pair[0]),
                    answer=_said(pair[1]) if len(pair) > 1 else "",
                )
            )
            for turn in pair:
                holder[str(turn["dia_id"])] = label
    return exchanges, holder


def _evidence(ids: list[str], holder: dict[str, str]) -> list[str]:
    """The labels of the exchanges holding the evidence turns that exist, in order."""
    labels: list[str] = []
    for text in ids:
        for session, turn in _DIA_ID.findall(text):
            label = holder.get(f"D{session}:{turn}")
            if label is not None and label not in labels:
                labels.append(label)
    return labels


def locomo() -> Corpus:
    histories: dict[str, list[Exchange]] = {}
    questions: list[Question] = []
    with zipfile.ZipFile(LOCOMO) as archive:
        names = sorted(name for name in archive.namelist() if name.endswith(".json"))
        for number, name in enumerate(names):
            raw = json.loads(archive.read(name))
            person = f"{raw['speaker_a']} and {raw['speaker_b']}"
            histories[person], holder = _conversation(raw)
            for qa in raw["qa"]:
                category = LOCOMO_CATEGORIES.get(qa["category"])
                evidence = _evidence(qa["evidence"], holder)
                if category is None or not evidence:
                    continue
                questions.append(
                    Question(
                        person=person,
                        question=qa["question"],
                        evidence=evidence,
                        split="tune" if number < LOCOMO_TUNE else "report",
                        category=category,
                    )
                )
    return Corpus(name="locomo", histories=histories, questions=questions)


CORPORA = {"memorybank": memorybank, "locomo": locomo}


def load(name: str) -> Corpus:
    return CORPORA[name]()
