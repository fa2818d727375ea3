"""The container and compose files agree with the bot they run: every variable they set is a
setting the bot reads, the ports and paths line up between workers, proxy and healthchecks,
the image runs as non-root and probes its own health port (``python -m bot.healthcheck``,
run against a live port in tests/test_bot_health.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from bot.config import Settings

ROOT = Path(__file__).resolve().parents[1]
WORKERS = ("bot-1", "bot-2")
SANDBOX_WORKERS = ("bot-sandbox-1", "bot-sandbox-2")


def compose(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / name).read_text())
    return loaded


def services() -> dict[str, Any]:
    found: dict[str, Any] = compose("docker-compose.yml")["services"]
    return found


def test_every_variable_a_bot_service_sets_is_a_setting_of_the_bot() -> None:
    fields = {name.upper() for name in Settings.model_fields}
    for name, service in services().items():
        if service.get("image") != "banco" or service.get("command"):
            continue  # postgres, and the sandbox (python -m sandbox takes arguments)
        unknown = set(service["environment"]) - fields
        assert not unknown, f"{name} sets {unknown}, which bot/config.py does not read"


def test_two_webhook_workers_share_postgres_and_report_ready() -> None:
    svc = services()
    assert set(svc) == {"postgres", *WORKERS, "sandbox", *SANDBOX_WORKERS}
    assert svc["postgres"]["healthcheck"]["test"][-1].startswith("pg_isready")
    for name in WORKERS:
        worker = svc[name]
        env = worker["environment"]
        assert "profiles" not in worker
        url = urlsplit(env["DATABASE_URL"])
        assert (url.scheme, url.hostname, url.port) == ("postgresql", "postgres", 5432)
        assert env["WEBHOOK_URL"].endswith(env["WEBHOOK_PATH"]) and env["WEBHOOK_PATH"] == (
            "/telegram")
        assert (env["WEBHOOK_LISTEN"], env["WEBHOOK_PORT"]) == ("0.0.0.0", "8080")
        assert (env["HEALTH_HOST"], env["HEALTH_PORT"]) == ("0.0.0.0", "9090")
        assert env["LOG_FORMAT"] in Settings.model_fields["log_format"].annotation.__args__
        assert worker["depends_on"] == {"postgres": {"condition": "service_healthy"}}
        assert worker["healthcheck"]["test"] == ["CMD", "python", "-m", "bot.healthcheck",
                                                 "--ready"]
        assert "BOT_API_BASE_URL" not in env  # the real Telegram


def test_the_sandbox_profile_is_the_telegram_of_two_webhook_workers() -> None:
    svc = services()
    sandbox = svc["sandbox"]
    command = sandbox["command"]
    assert command[:3] == ["python", "-m", "sandbox"]
    host, port = command[command.index("--host") + 1], command[command.index("--port") + 1]
    assert host == "0.0.0.0"
    spread = [command[i + 1] for i, word in enumerate(command) if word == "--webhook-spread"]
    assert f":{port}/" in " ".join(sandbox["healthcheck"]["test"])
    assert sandbox["profiles"] == ["sandbox"]
    for name in SANDBOX_WORKERS:
        bot = svc[name]
        env = bot["environment"]
        assert bot["profiles"] == ["sandbox"]
        assert env["BOT_API_BASE_URL"] == f"http://sandbox:{port}"
        assert urlsplit(env["DATABASE_URL"]).query == "schema=sandbox"
        assert bot["depends_on"]["sandbox"] == {"condition": "service_healthy"}
        assert env["WEBHOOK_SECRET"] and env["WEBHOOK_PATH"] == "/telegram"
        # the sandbox, as the load balancer, posts to every worker's webhook port and path
        assert f"http://{name}:{env['WEBHOOK_PORT']}{env['WEBHOOK_PATH']}" in spread
    assert len(spread) == len(SANDBOX_WORKERS)
    # `python -m sandbox` takes exactly these options
    help_text = subprocess.run([sys.executable, "-m", "sandbox", "--help"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
    for option in command[3::2]:
        assert option in help_text


def test_production_proxy_balances_the_webhook_path_over_every_ready_worker() -> None:
    prod = compose("deploy/docker-compose.prod.yml")["services"]["proxy"]
    assert sorted(prod["ports"]) == ["443:443", "80:80"]
    assert prod["depends_on"] == {w: {"condition": "service_healthy"} for w in WORKERS}
    mount = next(v for v in prod["volumes"] if v.endswith(":/etc/caddy/Caddyfile:ro"))
    caddyfile = (ROOT / mount.split(":")[0]).read_text()
    env = services()["bot-1"]["environment"]
    path = env["WEBHOOK_PATH"]
    assert re.search(rf"handle {re.escape(path)} {{", caddyfile)
    upstreams = re.search(r"reverse_proxy ([^{]+){", caddyfile)
    assert upstreams is not None
    assert upstreams.group(1).split() == [f"{w}:{env['WEBHOOK_PORT']}" for w in WORKERS]
    assert f"health_port {env['HEALTH_PORT']}" in caddyfile
    assert "health_uri /readyz" in caddyfile
    assert "{$PUBLIC_HOST}" in caddyfile and "PUBLIC_HOST" in prod["environment"]


def test_the_image_runs_as_non_root_and_checks_its_health_port() -> None:
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    user = next(i for i, line in enumerate(lines) if line.startswith("USER "))
    assert lines[user] == "USER banco"
    assert user > max(i for i, line in enumerate(lines) if line.startswith("RUN "))
    env = " ".join(line for line in lines if "=" in line)
    for setting in ("REQUIRE_TOKEN=1", "HEALTH_HOST=0.0.0.0", "HEALTH_PORT=9090"):
        assert setting in env
    check = next(line for line in lines if line.startswith("CMD [\"python\", \"-m\", \"bot.h"))
    assert check == 'CMD ["python", "-m", "bot.healthcheck"]'
    assert "9090" in next(line for line in lines if line.startswith("EXPOSE")).split()


@pytest.mark.parametrize("name", ["docker-compose.yml", "deploy/docker-compose.prod.yml"])
def test_compose_files_parse_and_declare_their_volumes(name: str) -> None:
    data = compose(name)
    declared = set(data.get("volumes") or {})
    for service in data["services"].values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if not source.startswith((".", "/")):
                assert source in declared, f"{name}: volume {source} is not declared"
