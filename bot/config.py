"""Settings read from the environment (and a ``.env`` file), pydantic-settings style."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# What the Bot API accepts as a webhook's secret_token
WEBHOOK_SECRET_RE = re.compile(r"[A-Za-z0-9_-]{1,256}")


class Settings(BaseSettings):
    """Everything the bot process needs to start; see the README for each variable."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    bot_token: str | None = None
    data_dir: Path = Path("./data")
    database_url: str | None = None
    bot_api_base_url: str | None = None
    default_language: str = "en"
    decision_timeout: float = 60.0
    # a table closes itself after this many decisions in a row nobody took (0: never); a
    # table's /settings idle_close overrides it (docs/rules.md §0.12)
    idle_close: int = 6
    starting_grant: int = 1000
    daily_bonus: int = 100
    sandbox_host: str = "127.0.0.1"
    sandbox_port: int = 8081
    # Telegram allows about 20 messages a minute in a group (README, "Pace under
    # Telegram's limits"); the rate limiter enforces it. Only the end-to-end tests raise
    # it, to run fast.
    group_messages_per_minute: int = 20
    # The window of that limit in seconds: Telegram's is a minute; only a test that
    # speeds up the sandbox's clock shortens it.
    group_rate_period: float = 60.0
    rate_limit_retries: int = 3
    # How the group budget is spent (bot/outbox/pace.py): an edit that only refreshes the table
    # (nobody learns his turn from it) waits this many seconds after the group's last
    # message, at most this many per coup, and never takes the last few of the minute's
    # messages (kept for commands like /balance). A turn the awaited player learns only
    # from the group goes out at once.
    group_edit_gap: float = 8.0
    group_edits_per_coup: int = 3
    group_reserve: int = 3
    # Each awaited player who has a private chat with the bot gets his turn there, with
    # his buttons (outside the group budget); /settings turn_dm on|off per table.
    turn_dms: bool = True
    # A player's private view (his cards, his private decision) shown in the group to him
    # alone, as a Bot API 10.2 ephemeral message, when he presses My cards or a button of a
    # decision that is his alone (bot/gateway/ephemeral.py). Telegram does not say whether
    # these count against the group's ~20 messages a minute: counted unless set otherwise.
    ephemeral: bool = True
    ephemeral_in_group_budget: bool = True
    log_level: str = "INFO"
    # Operations (bot/ops/health.py, bot/ops/logs.py): "json" logs one JSON object per line; the
    # health port serves /healthz, /readyz and /metrics (0: off); the container sets
    # REQUIRE_TOKEN, so without BOT_TOKEN it stops at once unless SANDBOX asks for the sandbox.
    log_format: Literal["text", "json"] = "text"
    health_host: str = "127.0.0.1"
    health_port: int = 9090
    require_token: bool = False
    sandbox: bool = False
    # Seconds a stop (SIGTERM) lets the outbox send before the HTTP client closes; what is
    # left is sent after the next start.
    stop_flush: float = 1.5
    # Record what the e2e tests check beyond Telegram (bot/ops/hooks.py); off in production.
    test_hooks: bool = False
    # Telegram's ~30 messages a second for the whole bot, kept by the rate limiter;
    # 0 lifts it (only the load bench does, to measure the bot rather than the cap).
    overall_messages_per_second: int = 30
    # The HTTP client under PTB (bot/gateway/transport.py): "aiohttp", or "httpx" for PTB's default.
    transport: str = "aiohttp"
    # The event loop: "uvloop" (libuv, a C loop), or "asyncio" for the standard one.
    event_loop: Literal["uvloop", "asyncio"] = "uvloop"
    # Several bot processes on one PostgreSQL (bot/workers/coordination.py): on by default with
    # PostgreSQL, off with SQLite; SHARED=0 keeps PostgreSQL to one process.
    shared: bool | None = None
    # Where the workers count Telegram's budgets together (else in PostgreSQL).
    redis_url: str | None = None
    # Webhook mode (bot/gateway/webhook.py) when WEBHOOK_URL is set, the public base URL Telegram
    # posts to (WEBHOOK_PATH is appended); else the bot polls. The bot listens on
    # WEBHOOK_LISTEN:WEBHOOK_PORT and refuses a request without WEBHOOK_SECRET.
    webhook_url: str = ""
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8080
    webhook_path: str = "/telegram"
    webhook_secret: SecretStr | None = None
    # The live table as a Telegram Mini App (bot/gateway/webapp/): on when WEBAPP_URL (the
    # public https URL the proxy routes to WEBAPP_LISTEN:WEBAPP_PORT) and WEBAPP_SHORT_NAME
    # (the app's short name made with @BotFather's /newapp) are both set.
    webapp_url: str = ""
    webapp_short_name: str = ""
    webapp_listen: str = "127.0.0.1"
    webapp_port: int = 8088
    # the Mini App script the page loads: Telegram's in production, the sandbox's fake locally
    webapp_sdk_url: str = "https://telegram.org/js/telegram-web-app.js"
    # how old an initData may be when a page opens (seconds)
    webapp_max_age: int = 86400

    @model_validator(mode="after")
    def _webhook_settings(self) -> Settings:
        """A webhook needs an http(s) URL, a path and a secret the Bot API accepts."""
        secret = self.webhook_secret.get_secret_value() if self.webhook_secret else ""
        if self.webhook_url and not self.webhook_url.startswith(("https://", "http://")):
            raise ValueError("WEBHOOK_URL must be an https:// (or http://) URL")
        if self.webhook_url and not secret:
            raise ValueError("WEBHOOK_SECRET is required with WEBHOOK_URL (1-256 characters "
                             "of A-Z, a-z, 0-9, _ and -)")
        if secret and not WEBHOOK_SECRET_RE.fullmatch(secret):
            raise ValueError("WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ "
                             "and - (what Telegram accepts as a secret_token)")
        if self.webapp_url and not self.webapp_url.startswith(("https://", "http://")):
            raise ValueError("WEBAPP_URL must be an https:// (or http://) URL")
        if self.webapp_short_name and not re.fullmatch(r"[A-Za-z0-9_]{3,30}",
                                                       self.webapp_short_name):
            raise ValueError("WEBAPP_SHORT_NAME must be the app's short name (3-30 characters "
                             "of A-Z, a-z, 0-9 and _)")
        if not self.webhook_path.startswith("/"):
            raise ValueError("WEBHOOK_PATH must start with /")
        return self

    @property
    def webapp_on(self) -> bool:
        """Whether the Mini App is configured (WEBAPP_URL and WEBAPP_SHORT_NAME)."""
        return bool(self.webapp_url and self.webapp_short_name)

    @property
    def webhook_endpoint(self) -> str:
        """The URL given to setWebhook: WEBHOOK_URL followed by WEBHOOK_PATH."""
        return self.webhook_url.rstrip("/") + self.webhook_path

    @property
    def sqlite_path(self) -> Path:
        """The SQLite file under DATA_DIR (the database without DATABASE_URL)."""
        return self.data_dir / "banco.sqlite3"

    @property
    def storage_url(self) -> str:
        """DATABASE_URL, or the SQLite file under DATA_DIR."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.sqlite_path.resolve()}"

    def api_base_url(self) -> str | None:
        """BOT_API_BASE_URL as PTB wants it: the token is appended after ``/bot``."""
        url = self.bot_api_base_url
        if not url:
            return None
        url = url.rstrip("/")
        if "{token}" in url or url.endswith("/bot"):
            return url
        return url + "/bot"
