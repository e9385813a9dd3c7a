"""What operators see, over real HTTP: ``/metrics`` (read with prometheus-client's own
parser), ``/readyz``, one log line per handled event, and permanent model errors."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.answering.service import MISCONFIGURED
from bot.config import Settings
from bot.observability import EVENT_LOGGER
from bot.server import HttpServer
from bot.simulator import FakeLLMServer, ScriptedReply
from bot.simulator.slack_web_api import FakeSlackWebAPI
from tests.support.harness import ALICE, SIGNING_SECRET, SignedSlack, dm_channel, start_bot

QUESTION = "how do I rotate the staging password"


async def scrape(http: httpx.AsyncClient, server: HttpServer) -> tuple[str, dict[str, float]]:
    """The ``/metrics`` text and its samples, keyed ``name{label=value,...}``."""
    response = await http.get(f"{server.url}/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain")
    samples: dict[str, float] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            labels = ",".join(f"{key}={value}" for key, value in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}"] = sample.value
    return response.text, samples


def moved(before: dict[str, float], after: dict[str, float], name: str) -> float:
    return after.get(name, 0.0) - before.get(name, 0.0)


async def test_metrics_move_after_an_answer_a_vote_and_a_forget_and_hold_no_text(
    slack: SignedSlack,
    bot_server: HttpServer,
    http: httpx.AsyncClient,
    fake_slack: FakeSlackWebAPI,
    settings: Settings,
) -> None:
    _, before = await scrape(http, bot_server)
    assert before["bot_answers_total{outcome=answered}"] == 0

    answer = await slack.ask_in_dm(QUESTION)
    await slack.vote(answer, reaction="+1")
    forgot = await slack.command("/forget")
    assert forgot.status_code == 200
    await slack.settled()

    text, after = await scrape(http, bot_server)
    assert moved(before, after, "bot_answers_total{outcome=answered}") == 1
    assert moved(before, after, "bot_events_total{kind=answer,outcome=answered}") == 1
    assert moved(before, after, "bot_events_total{kind=forget,outcome=ok}") == 1
    assert moved(before, after, "bot_votes_total{outcome=success}") == 1
    assert moved(before, after, "bot_forgets_total{}") == 1
    assert moved(before, after, "bot_recall_seconds_count{}") == 1
    assert moved(before, after, "bot_model_request_seconds_count{}") >= 1
    assert moved(before, after, "bot_slack_call_seconds_count{}") >= 2
    assert after["bot_model_errors_total{kind=unavailable}"] == 0
    assert [name for name in after if "_created" in name] == [], "no _created series"
    for secret in (
        "rotate",
        "staging password",
        answer.text,
        ALICE,
        fake_slack.token,
        SIGNING_SECRET,
        settings.llm_api_key.get_secret_value(),
    ):
        assert secret not in text


async def test_each_handled_event_is_one_line_with_ids_and_timings_but_no_text(
    slack: SignedSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=EVENT_LOGGER)

    answer = await slack.ask_in_dm(QUESTION)
    await slack.vote(answer, reaction="-1")

    lines = [record for record in caplog.records if record.name == EVENT_LOGGER]
    assert [line.event["kind"] for line in lines] == ["answer", "vote"]  # type: ignore[attr-defined]
    answered, voted = (line.event for line in lines)  # type: ignore[attr-defined]
    assert answered["outcome"] == "answered"
    assert answered["channel"] == dm_channel(ALICE)
    assert answered["user"] == ALICE
    assert answered["event_id"]
    assert answered["model_calls"] >= 1
    assert answered["recall_calls"] == 1
    assert answered["slack_calls"] >= 2
    for timing in ("total_ms", "recall_ms", "model_ms", "slack_ms"):
        assert answered[timing] >= 0
    assert voted["outcome"] == "failure"
    assert voted["message_ts"] == answer.ts
    for line in lines:
        shown = line.getMessage()
        assert shown.startswith(f"event kind={line.event['kind']}")  # type: ignore[attr-defined]
        assert "rotate" not in shown
        assert "Answer:" not in shown


async def test_readyz_asks_the_database_not_the_model(
    bot_server: HttpServer, http: httpx.AsyncClient, fake_llm: FakeLLMServer
) -> None:
    ready = await http.get(f"{bot_server.url}/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"ok": True, "store": "ok"}

    fake_llm.down = True
    still = await http.get(f"{bot_server.url}/readyz")

    assert still.status_code == 200, "a model outage must not take the replica out of the LB"
    assert still.json() == {"ok": True, "store": "ok"}


async def model_on_healthz(
    http: httpx.AsyncClient, server: HttpServer, until: Callable[[str], bool]
) -> dict[str, Any]:
    """The ``/healthz`` body once its ``model`` detail satisfies ``until`` (the bot checks
    the model in the background); fail after a few seconds."""
    body: dict[str, Any] = {}
    for _ in range(100):
        response = await http.get(f"{server.url}/healthz")
        assert response.status_code == 200, "health never depends on the model"
        body = response.json()
        if until(body["model"]):
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"/healthz kept saying {body}")


@pytest.fixture
async def checking_bot(settings: Settings) -> AsyncIterator[HttpServer]:
    """A bot that checks its model every 50 ms."""
    server = await start_bot(settings, model_check_seconds=0.05)
    yield server
    await server.stop()


async def test_the_models_state_is_a_detail_of_healthz_and_the_bot_model_up_metric(
    checking_bot: HttpServer, http: httpx.AsyncClient, fake_llm: FakeLLMServer
) -> None:
    up = await model_on_healthz(http, checking_bot, lambda model: model == "ok")
    assert up["ok"] is True
    assert up["model_endpoint"] == fake_llm.base_url.rstrip("/")
    assert up["model_checked_at"]
    assert (await scrape(http, checking_bot))[1]["bot_model_up{}"] == 1

    fake_llm.down = True
    down = await model_on_healthz(http, checking_bot, lambda model: model != "ok")

    assert down["ok"] is True
    assert "503" in down["model"]
    assert (await scrape(http, checking_bot))[1]["bot_model_up{}"] == 0
    assert (await http.get(f"{checking_bot.url}/readyz")).status_code == 200

    fake_llm.down = False
    await model_on_healthz(http, checking_bot, lambda model: model == "ok")
    assert (await scrape(http, checking_bot))[1]["bot_model_up{}"] == 1


async def test_with_the_model_down_votes_memory_and_forget_still_work(
    slack: SignedSlack, bot_server: HttpServer, http: httpx.AsyncClient, fake_llm: FakeLLMServer
) -> None:
    answer = await slack.ask_in_dm(QUESTION)
    fake_llm.down = True

    await slack.vote(answer, reaction="+1")
    listed = await slack.command("/memory", channel=dm_channel(ALICE))
    ready = await http.get(f"{bot_server.url}/readyz")
    forgot = await slack.command("/forget")
    await slack.settled()

    assert [e.status for e in await slack.services.memory.list_episodes(ALICE)] == []
    assert listed.status_code == 200
    assert QUESTION in listed.text
    assert ready.status_code == 200
    assert forgot.status_code == 200
    _, samples = await scrape(http, bot_server)
    assert samples["bot_votes_total{outcome=success}"] == 1
    assert samples["bot_forgets_total{}"] == 1


@pytest.fixture
async def unpulled_model_bot(settings: Settings) -> AsyncIterator[HttpServer]:
    server = await start_bot(settings.model_copy(update={"llm_model": "llama9-unpulled"}))
    yield server
    await server.stop()


async def test_healthz_names_a_model_the_endpoint_does_not_serve_and_readyz_stays_ready(
    unpulled_model_bot: HttpServer, http: httpx.AsyncClient
) -> None:
    health = await model_on_healthz(
        http, unpulled_model_bot, lambda model: model != "not checked yet"
    )

    assert "ollama pull llama9-unpulled" in health["model"]
    assert (await http.get(f"{unpulled_model_bot.url}/readyz")).status_code == 200


async def test_readyz_is_unready_once_the_store_is_closed(
    bot_server: HttpServer, http: httpx.AsyncClient
) -> None:
    services = bot_server.bot.services
    assert services is not None
    await services.memory.close()

    response = await http.get(f"{bot_server.url}/readyz")

    assert response.status_code == 503
    assert response.json()["store"].startswith("unreadable")


@pytest.mark.parametrize(("status", "kind"), [(401, "auth"), (404, "not_found")])
async def test_a_permanent_model_error_tells_the_user_to_tell_the_admin(
    slack: SignedSlack,
    bot_server: HttpServer,
    http: httpx.AsyncClient,
    fake_llm: FakeLLMServer,
    caplog: pytest.LogCaptureFixture,
    status: int,
    kind: str,
) -> None:
    fake_llm.script(ScriptedReply.error(status, message="nope"))

    notice = await slack.ask_in_dm(QUESTION)

    assert notice.text == MISCONFIGURED
    assert len(fake_llm.requests) == 1, "a permanent error is not retried"
    _, samples = await scrape(http, bot_server)
    assert samples[f"bot_model_errors_total{{kind={kind}}}"] == 1
    assert samples["bot_answers_total{outcome=misconfigured}"] == 1
    [told] = [r for r in caplog.records if r.levelno == logging.ERROR and "refuses" in r.message]
    expected = "LLM_API_KEY" if status == 401 else "LLM_MODEL"
    assert expected in told.getMessage()
