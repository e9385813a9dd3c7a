"""What operators see of the running bot: metrics, one log line per event, model checks."""

from bot.observability.events import EVENT_LOGGER, EventRecord, Observer, current_event, timed
from bot.observability.metrics import BotMetrics
from bot.observability.model_requests import ModelRequests, model_error_kind
from bot.observability.slack_calls import slack_call_tracing

__all__ = [
    "EVENT_LOGGER",
    "BotMetrics",
    "EventRecord",
    "ModelRequests",
    "Observer",
    "current_event",
    "model_error_kind",
    "slack_call_tracing",
    "timed",
]
