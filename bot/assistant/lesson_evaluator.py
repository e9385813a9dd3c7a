"""Send a draft back when it repeats an answer the person already marked 👎."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.agent.evaluation import EvaluationDetails, EvaluationResult
from bot.assistant.context import AssistantContext
from bot.assistant.similarity import (
    REPEAT_ROUGE_L,
    common_run,
    coverage,
    rouge_l,
    shared_commands,
    stems,
    words,
)
from memory import Episode, EpisodeStatus
from memory.text import shorten

__all__ = [
    "DIFFERENT_APPROACH",
    "FOLLOW_NOTES",
    "NO_OTHER_ANSWER",
    "NO_OTHER_ANSWER_GIVEN_REASON",
    "REPEATS_FAILURE",
    "LessonEvaluator",
    "ask_instead",
]

REPEATS_FAILURE = (
    "This answer is too close to one that did not help this person when they asked "
    "something similar before. Give a different answer."
)
DIFFERENT_APPROACH = "Take a different approach."
FOLLOW_NOTES = "Do what your notes on this person say to do this time, in your own words."
NO_OTHER_ANSWER = (
    "What I suggested when you asked this before didn't help you, and I don't have a "
    "different answer I'm sure of. What went wrong with it, or what are you trying to do?"
)
NO_OTHER_ANSWER_GIVEN_REASON = (
    "What I suggested when you asked this before didn't work for you (you said: “{reason}”), "
    "and I don't have a different answer I'm sure of. Can you tell me more about your setup?"
)

_QUOTED = re.compile(r"[\"“”'‘’`]([^\"“”‘’`]{3,80})[\"“”'‘’`]")
_AVOID = re.compile(
    r"\b(?:avoid|don't|do not|never|stop|instead of)\s+([^.;:!?,\n]+)", re.IGNORECASE
)
_INSTRUCTION_WORDS = frozenset(
    [
        "suggest",
        "suggesting",
        "recommend",
        "recommending",
        "tell",
        "telling",
        "say",
        "saying",
        "use",
        "using",
        "mention",
        "mentioning",
        "give",
        "giving",
        "answer",
        "answering",
        "reply",
        "replying",
        "point",
        "pointing",
        "them",
        "people",
        "person",
        "user",
        "users",
    ]
)
_MIN_CLAUSE_STEMS = 2
_MAX_CLAUSE_WORDS = 8


@dataclass(frozen=True, slots=True)
class _Finding:
    episode: Episode
    violations: list[str]


class LessonEvaluator:
    """Checks drafts against the failures recalled for this question.

    A draft repeats a failure when it gives one of the failed answer's commands again or
    reads like it (ROUGE-L of :data:`~bot.assistant.similarity.REPEAT_ROUGE_L`: the measure
    ``benchmarks/learning.py`` counts a repeat by), contains most (``min_overlap``) of its
    distinctive stemmed words (those not already in its question), shares a passage of at
    least ``min_common_words`` words with it, or uses a phrase the lesson says to avoid
    (quoted, or after "avoid", "don't", "never", "instead of"). The model is told to give a
    different answer and to follow its notes (the lessons, in its instructions), never what
    the failed answer said: quoting it primed models to give it again; nor the lesson's
    words, which a small model then sent as its answer. When every draft repeats it, the person
    is told so and asked what went wrong instead (:data:`NO_OTHER_ANSWER`): a small model
    often knows one answer only, and giving back what the person rejected helps nobody.
    """

    def __init__(
        self, *, min_overlap: float = 0.6, min_common_words: int = 8, min_distinctive: int = 3
    ) -> None:
        self.min_overlap = min_overlap
        self.min_common_words = min_common_words
        self.min_distinctive = min_distinctive

    def applies(self, context: AssistantContext) -> bool:
        return bool(_failures(context))

    async def evaluate(self, draft: str, context: AssistantContext) -> EvaluationResult:
        findings = [
            finding
            for episode in _failures(context)
            if (finding := self._check(draft, episode)) is not None
        ]
        if not findings:
            return EvaluationResult.passed()
        lessons = list(dict.fromkeys(f.episode.lesson for f in findings if f.episode.lesson))
        return EvaluationResult(
            success=False,
            feedback=REPEATS_FAILURE,
            fallback=ask_instead([f.episode for f in findings]),
            details=EvaluationDetails(
                violations=[violation for f in findings for violation in f.violations],
                suggestions=[FOLLOW_NOTES if lessons else DIFFERENT_APPROACH],
            ),
        )

    def _check(self, draft: str, episode: Episode) -> _Finding | None:
        violations = []
        if commands := shared_commands(draft, episode.answer):
            violations.append(f"Gives {len(commands)} command(s) of the answer marked 👎 again.")
        if (similarity := rouge_l(draft, episode.answer)) >= REPEAT_ROUGE_L:
            violations.append(f"ROUGE-L {similarity:.2f} with the answer marked 👎.")
        distinctive = stems(episode.answer, ignore=frozenset(stems(episode.question)))
        overlap = coverage(draft, distinctive)
        if len(distinctive) >= self.min_distinctive and overlap >= self.min_overlap:
            violations.append(
                f"Shares {overlap:.0%} of the distinctive words of the answer marked 👎."
            )
        run = common_run(draft, episode.answer)
        if run >= self.min_common_words:
            violations.append(f"Repeats a {run}-word passage of the answer marked 👎.")
        violations.extend(
            f"Uses “{phrase}”, which the lesson says to avoid."
            for phrase in _avoided_phrases_in(draft, episode.lesson or "")
        )
        if not violations:
            return None
        return _Finding(episode, violations)


def ask_instead(failures: Sequence[Episode]) -> str:
    """What the person is sent when no draft of the turn gets past a 👎 answer (nor its
    lesson): they are told so and asked what went wrong, with their reason if they gave one."""
    reason = next((episode.reason for episode in failures if episode.reason), None)
    if reason is None:
        return NO_OTHER_ANSWER
    return NO_OTHER_ANSWER_GIVEN_REASON.format(reason=shorten(reason, 200))


def _failures(context: AssistantContext) -> list[Episode]:
    return [
        recalled.episode
        for recalled in context.recalled
        if recalled.episode.status is EpisodeStatus.FAILURE
        and recalled.episode.requester_id == context.requester_id
    ]


def _avoided_phrases_in(draft: str, lesson: str) -> list[str]:
    """Phrases of the lesson that say what not to do, and that the draft does."""
    draft_words = " ".join(words(draft))
    draft_stems = stems(draft)
    found = []
    if _AVOID.search(lesson):
        for quoted in _QUOTED.findall(lesson):
            phrase = " ".join(words(quoted))
            if phrase and f" {phrase} " in f" {draft_words} ":
                found.append(quoted.strip())
    for clause in _AVOID.findall(lesson):
        clause_words = words(clause)[:_MAX_CLAUSE_WORDS]
        wanted = stems(" ".join(clause_words), ignore=_INSTRUCTION_WORDS)
        if len(wanted) >= _MIN_CLAUSE_STEMS and wanted <= draft_stems:
            found.append(" ".join(clause_words))
    return list(dict.fromkeys(found))
