"""``python -m bot``: run against Telegram with BOT_TOKEN, else against the local sandbox.

SANDBOX=1 asks for the sandbox even with a token; REQUIRE_TOKEN=1 (the container's
default) refuses to start without a token unless SANDBOX=1 asks for the sandbox. Against the
sandbox, unless WEBAPP_URL or WEBAPP_SHORT_NAME is set, the Mini App is on too: served at
http://<sandbox host>:WEBAPP_PORT/app/ as "table", registered with the sandbox (its
BotFather), its page loading the sandbox's stand-in for Telegram's script."""

from __future__ import annotations

import asyncio
import atexit
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from bot.app import run
from bot.config import Settings
from bot.ops import logs

SANDBOX_TOKEN = "100000:sandbox"
LOCAL_SHORT_NAME = "table"


def start_sandbox_thread(host: str, port: int, state_path: Path | None = None,
                         miniapp: dict[str, Any] | None = None) -> str:
    """Run the fake Bot API server in its own thread and event loop; returns its URL.

    With `state_path` the sandbox keeps its world in that file across restarts (saved
    once more at exit). `miniapp` ({short_name, url, title?, token?}) is registered with it,
    as @BotFather's /newapp would."""
    from sandbox.server import SandboxHandle, start_sandbox
    from sandbox.state import MiniApp

    ready: dict[str, str] = {}
    started = threading.Event()

    async def begin() -> SandboxHandle:
        handle = await start_sandbox(host, port, state_path)
        if miniapp is not None:
            handle.world.register_miniapp(MiniApp(**miniapp))
            if handle.state is not None:
                handle.state.touch()
        return handle

    def serve() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        handle = loop.run_until_complete(begin())
        ready["url"] = handle.url
        if state_path is not None:
            atexit.register(
                lambda: asyncio.run_coroutine_threadsafe(handle.save(), loop).result(5)
            )
        started.set()
        loop.run_forever()

    threading.Thread(target=serve, name="sandbox", daemon=True).start()
    if not started.wait(10):
        raise SystemExit("the sandbox did not start")
    return ready["url"]


def browser_host(host: str) -> str:
    """The address a browser on this machine reaches a server listening on `host` at."""
    return "127.0.0.1" if host in ("", "0.0.0.0", "::") else host


def local_webapp(settings: Settings, sandbox_url: str) -> Settings:
    """The Mini App of a run against the local sandbox at `sandbox_url`, when neither
    WEBAPP_URL nor WEBAPP_SHORT_NAME is set: http://<sandbox host>:WEBAPP_PORT/app/ named
    "table", its page loading the sandbox's stand-in script, listening where the sandbox
    does (unless WEBAPP_LISTEN says otherwise)."""
    if settings.webapp_url or settings.webapp_short_name:
        return settings
    host = browser_host(settings.sandbox_host)
    sandbox = urlsplit(sandbox_url)
    update: dict[str, Any] = {
        "webapp_url": f"http://{host}:{settings.webapp_port}/app/",
        "webapp_short_name": LOCAL_SHORT_NAME,
        "webapp_sdk_url": f"http://{host}:{sandbox.port}/js/telegram-web-app.js",
    }
    if "webapp_listen" not in settings.model_fields_set:
        update["webapp_listen"] = settings.sandbox_host
    return settings.model_copy(update=update)


def settings_problems(error: ValidationError) -> str:
    """What is wrong with the settings, one line each, named as in the environment."""
    lines = ["banco: cannot start, the settings are wrong:"]
    for item in error.errors():
        name = ".".join(str(part) for part in item["loc"]).upper()
        message = str(item["msg"]).removeprefix("Value error, ")
        lines.append(f"  {name}: {message}" if name else f"  {message}")
    return "\n".join(lines)


NO_TOKEN = ("BOT_TOKEN is not set: the bot cannot reach Telegram without the token @BotFather "
            "gave (docker run -e BOT_TOKEN=...). To try the local sandbox instead, set "
            "SANDBOX=1 (and SANDBOX_HOST=0.0.0.0 with port 8081 published).")


def main() -> None:
    """Entry point."""
    try:
        settings = Settings()
    except ValidationError as exc:
        raise SystemExit(settings_problems(exc)) from None
    logs.configure(settings.log_level, settings.log_format)
    if settings.bot_token and not settings.sandbox:
        run(settings, settings.bot_token, settings.api_base_url())
        return
    if settings.require_token and not settings.sandbox:
        raise SystemExit(NO_TOKEN)
    # the app's URL and name do not hang on the sandbox's port (its script's URL does)
    app = local_webapp(settings, f"http://{settings.sandbox_host}:{settings.sandbox_port}")
    miniapp = None
    if app.webapp_on:
        miniapp = {"short_name": app.webapp_short_name, "url": app.webapp_url,
                   "title": "Banco table", "token": SANDBOX_TOKEN}
    url = start_sandbox_thread(
        settings.sandbox_host, settings.sandbox_port, settings.data_dir / "sandbox.json",
        miniapp,
    )
    settings = local_webapp(settings, url)
    print(f"Sandbox page: {url}/", flush=True)
    if settings.webapp_on:
        print(f"Mini App:     {settings.webapp_url} (t.me/banco_bot/{settings.webapp_short_name})",
              flush=True)
    run(settings, SANDBOX_TOKEN, f"{url}/bot")


if __name__ == "__main__":
    main()
