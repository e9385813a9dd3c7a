"""The bot's Prometheus metrics, in a registry of its own (one per running bot).

Only counts, outcomes and durations: no label ever holds message text, a user or a token,
so ``GET /metrics`` can be scraped by anyone who can reach it without leaking anything.
No ``_created`` series: prometheus-client adds one per counter and histogram by default
(when it was made, which Prometheus does not use), doubling the series a scrape stores.
"""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)

__all__ = [
    "ANSWER_OUTCOMES",
    "MODEL_ERROR_KINDS",
    "VOTE_OUTCOMES",
    "BotMetrics",
]

ANSWER_OUTCOMES = (
    "answered",
    "duplicate",
    "at_capacity",
    "store_unavailable",
    "no_answer",
    "model_unavailable",
    "misconfigured",
    "failed",
    "slack_unreachable",
    "abandoned",
)
VOTE_OUTCOMES = ("success", "failure", "pending", "ignored")
MODEL_ERROR_KINDS = ("unavailable", "auth", "not_found", "rejected")

disable_created_metrics()  # a switch of the library, for every registry of the process

_FAST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_MODEL_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)
_SLACK_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class BotMetrics:
    """Counters and histograms of one bot; :meth:`render` is the ``/metrics`` body."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.events = Counter(
            "bot_events",
            "Events handled (one per event log line), by kind and outcome",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self.answers = self._counter(
            "bot_answers", "Messages the bot handled, by outcome", "outcome", ANSWER_OUTCOMES
        )
        self.votes = self._counter(
            "bot_votes",
            "Votes (reactions and feedback buttons) by outcome: the answer's status after the "
            "vote, or ignored",
            "outcome",
            VOTE_OUTCOMES,
        )
        self.forgets = Counter(
            "bot_forgets", "Erasures of everything about a person", registry=self.registry
        )
        self.recall_seconds = self._histogram(
            "bot_recall_seconds",
            "Time to recall a question's past experience from memory",
            _FAST_BUCKETS,
        )
        self.model_seconds = self._histogram(
            "bot_model_request_seconds",
            "Time of one model request, to the last token of a streamed answer",
            _MODEL_BUCKETS,
        )
        self.model_errors = self._counter(
            "bot_model_errors",
            "Model requests that failed, by kind (auth, not_found and rejected are permanent)",
            "kind",
            MODEL_ERROR_KINDS,
        )
        self.model_up = Gauge(
            "bot_model_up",
            "1 when the model endpoint served LLM_MODEL at its last check (GET /models, every "
            "30 s), else 0 (also before the first check)",
            registry=self.registry,
        )
        self.slack_seconds = self._histogram(
            "bot_slack_call_seconds",
            "Time of one Slack Web API call",
            _SLACK_BUCKETS,
        )

    def _counter(
        self, name: str, documentation: str, label: str, values: tuple[str, ...]
    ) -> Counter:
        """A counter by ``label`` whose series for each of ``values`` is there from the start,
        at 0, so a scrape shows every outcome before it first happens."""
        counter = Counter(name, documentation, [label], registry=self.registry)
        for value in values:
            counter.labels(value)
        return counter

    def _histogram(self, name: str, documentation: str, buckets: tuple[float, ...]) -> Histogram:
        return Histogram(name, documentation, buckets=buckets, registry=self.registry)

    def render(self) -> bytes:
        """The metrics in Prometheus' text exposition format."""
        return generate_latest(self.registry)
