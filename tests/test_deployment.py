"""The Docker deployment as the README runs it: docker-compose.yml, deploy/nginx.conf and the
Dockerfile, read as files (no Docker engine here), and the replicas' health check run against
the real bot over HTTP."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from bot.server import EVENTS_PATH, HttpServer
from bot.simulator import FakeLLMServer

ROOT = Path(__file__).resolve().parents[1]
SLACK_PATHS = {EVENTS_PATH, "/slack/install", "/slack/oauth_redirect"}
"""What nginx passes on: the Events API, and Bolt's OAuth install and redirect paths."""


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    parsed: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return parsed


@pytest.fixture(scope="module")
def bot_service(compose: dict[str, Any]) -> dict[str, Any]:
    service: dict[str, Any] = compose["services"]["bot"]
    return service


def nginx_directives() -> str:
    """deploy/nginx.conf without its comments."""
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def nginx_locations() -> dict[str, str]:
    """Each ``location`` of deploy/nginx.conf (``= /path`` or ``/``) and its body."""
    blocks = re.finditer(r"location\s+(?P<where>[^{]+)\{(?P<body>[^}]*)\}", nginx_directives())
    return {match["where"].strip(): match["body"] for match in blocks}


def test_nginx_passes_on_slacks_paths_and_nothing_else() -> None:
    locations = nginx_locations()

    proxied = {where for where, body in locations.items() if "proxy_pass" in body}
    assert proxied == {f"= {path}" for path in SLACK_PATHS}, "exact paths only"
    assert re.fullmatch(r"\s*return 404;\s*", locations["/"]), "everything else is 404"
    for private in ("/metrics", "/healthz", "/readyz"):
        assert private not in nginx_directives()


def test_nginx_asks_dockers_dns_again_for_the_replicas(compose: dict[str, Any]) -> None:
    directives = nginx_directives()

    assert re.search(r"^resolver 127\.0\.0\.11 valid=\d+s\b", directives, re.MULTILINE)
    assert not re.search(r"^\s*upstream\b", directives, re.MULTILINE), "resolved once, at start"
    [target] = re.findall(r"set \$bot (\S+);", directives)
    passes = re.findall(r"proxy_pass (\S+);", directives)
    assert passes and set(passes) == {"$bot"}, "a variable makes nginx resolve at request time"
    address = urlsplit(target)
    assert address.hostname in compose["services"], "the compose service's DNS name"
    assert str(address.port) == compose["services"]["bot"]["environment"]["PORT"]


def test_nginx_is_the_load_balancer_in_front_of_healthy_replicas(compose: dict[str, Any]) -> None:
    lb = compose["services"]["lb"]

    assert "./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in lb["volumes"]
    assert lb["depends_on"] == {"bot": {"condition": "service_healthy"}}
    assert compose["services"]["bot"]["deploy"]["replicas"] >= 2
    assert "ports" not in compose["services"]["bot"], "replicas are reached through nginx only"


def test_the_database_password_is_not_pasted_into_the_url(compose: dict[str, Any]) -> None:
    environment = compose["services"]["bot"]["environment"]
    url = urlsplit(environment["BOT_DB_URL"])

    assert url.scheme == "postgresql"
    assert url.password is None
    assert "POSTGRES_PASSWORD" not in environment["BOT_DB_URL"]
    assert environment["PGPASSWORD"].startswith("${POSTGRES_PASSWORD")
    postgres = compose["services"]["postgres"]["environment"]
    assert postgres["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD")
    assert url.username == postgres["POSTGRES_USER"]
    assert url.path == f"/{postgres['POSTGRES_DB']}"


def test_a_model_on_the_docker_host_has_a_name_inside_the_containers(
    bot_service: dict[str, Any],
) -> None:
    assert "host.docker.internal:host-gateway" in bot_service["extra_hosts"]
    example = (ROOT / ".env.example").read_text()
    llm_comment = example.split("\nLLM_BASE_URL=", 1)[0].rsplit("\n\n", 1)[1]
    assert "http://host.docker.internal:11434/v1" in llm_comment
    assert "localhost is the container itself" in llm_comment


def test_the_image_runs_as_its_own_user_who_owns_its_data_folder() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    [user] = re.findall(r"^USER (\S+)$", dockerfile, re.MULTILINE)

    assert user not in {"root", "0", "nobody"}
    assert re.search(rf"useradd .*\b{user}\b", dockerfile.replace("\\\n", " "))
    assert f"chown {user}:{user} /data" in dockerfile
    assert re.search(r"^WORKDIR /data$", dockerfile, re.MULTILINE), "./bot.db is /data/bot.db"
    assert re.search(r'^VOLUME \["/data"\]$', dockerfile, re.MULTILINE)


def test_the_build_never_sends_secrets_or_databases() -> None:
    ignored = (ROOT / ".dockerignore").read_text().splitlines()

    for private in (".env", "*.db", "*.db-wal", ".venv/"):
        assert private in ignored


def test_the_readme_deploys_with_a_volume_and_explains_the_model_url() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### With Docker", 1)[1].split("\n## ", 1)[0]

    assert "POSTGRES_PASSWORD=choose-one docker compose up --build" in section
    assert "-v bot-data:/data" in section
    assert "LLM_BASE_URL=http://host.docker.internal:11434/v1" in section
    assert "PGPASSWORD" in section


def health_check(bot_service: dict[str, Any], url: str) -> subprocess.CompletedProcess[str]:
    """The compose file's health check of a replica, run here against the bot at ``url``."""
    kind, *command = bot_service["healthcheck"]["test"]
    assert kind == "CMD"
    assert command[0] == "python"
    inside = f"http://127.0.0.1:{bot_service['environment']['PORT']}"
    argv = [sys.executable, *(part.replace(inside, url) for part in command[1:])]
    assert argv[1:] != command[1:], "the check calls the replica's own port"
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)


async def test_the_health_check_passes_while_the_model_is_down(
    bot_service: dict[str, Any], bot_server: HttpServer, fake_llm: FakeLLMServer
) -> None:
    fake_llm.down = True

    checked = await asyncio.to_thread(health_check, bot_service, bot_server.url)

    assert checked.returncode == 0, checked.stderr


async def test_the_health_check_fails_when_the_database_cannot_be_read(
    bot_service: dict[str, Any], bot_server: HttpServer
) -> None:
    services = bot_server.bot.services
    assert services is not None
    await services.memory.close()

    checked = await asyncio.to_thread(health_check, bot_service, bot_server.url)

    assert checked.returncode != 0
