"""``python -m bot``: run against Telegram with BOT_TOKEN, else against the local sandbox.

SANDBOX=1 asks for the sandbox even with a token; REQUIRE_TOKEN=1 (the container's
default) refuses to start without a token unless SANDBOX=1 asks for the sandbox."""

from __future__ import annotations

import asyncio
import atexit
import threading
from pathlib import Path

from pydantic import ValidationError

from bot.app import run
from bot.config import Settings
from bot.ops import logs

SANDBOX_TOKEN = "100000:sandbox"


def start_sandbox_thread(host: str, port: int, state_path: Path | None = None) -> str:
    """Run the fake Bot API server in its own thread and event loop; returns its URL.

    With `state_path` the sandbox keeps its world in that file across restarts (saved
    once more at exit)."""
    from sandbox.server import start_sandbox

    ready: dict[str, str] = {}
    started = threading.Event()

    def serve() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        handle = loop.run_until_complete(start_sandbox(host, port, state_path))
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
    url = start_sandbox_thread(
        settings.sandbox_host, settings.sandbox_port, settings.data_dir / "sandbox.json"
    )
    print(f"Sandbox page: {url}/", flush=True)
    run(settings, SANDBOX_TOKEN, f"{url}/bot")


if __name__ == "__main__":
    main()
