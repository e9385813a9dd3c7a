"""Send a draft back when it repeats an answer the person already marked 👎."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.agent.evaluation import EvaluationDetails, EvaluationResult
from bot.assistant.context import AssistantContext
from bot.assistant.similarity import common_run, coverage, stems, words
from memory import Episode, EpisodeStatus

__all__ = ["LessonEvaluator"]

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

    A draft repeats a failure when it contains most (``min_overlap``) of the failed answer's
    distinctive stemmed words (those not already in its question), shares a passage of at
    least ``min_common_words`` words with it, or uses a phrase the lesson says to avoid
    (quoted, or after "avoid", "don't", "never", "instead of").
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
        lessons = [f.episode.lesson for f in findings if f.episode.lesson]
        feedback = " ".join(
            f"This person marked a similar answer 👎 before (they asked: “{f.episode.question}”)."
            + (f" Lesson: {f.episode.lesson}" if f.episode.lesson else "")
            for f in findings
        )
        return EvaluationResult(
            success=False,
            feedback=feedback,
            details=EvaluationDetails(
                violations=[violation for f in findings for violation in f.violations],
                suggestions=lessons or ["Take a different approach from the answer marked 👎."],
            ),
        )

    def _check(self, draft: str, episode: Episode) -> _Finding | None:
        violations = []
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
