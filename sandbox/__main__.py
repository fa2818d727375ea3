"""`python -m sandbox --host 127.0.0.1 --port 8081 [--state FILE] [--webhook-spread URL ...]`:
run the sandbox server alone (with --state, its users, chats and messages are kept in FILE
across restarts; with --webhook-spread, while the bot has a webhook set each update goes to
one of these URLs chosen at random, as a load balancer in front of several workers)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
from pathlib import Path

from sandbox.server import start_sandbox


async def _serve(host: str, port: int, state: Path | None, spread: list[str]) -> None:
    handle = await start_sandbox(host, port, state, webhook_spread=spread)
    print(f"Sandbox page:   {handle.url}/", flush=True)
    print(f"Bot API base:   {handle.bot_api_url}  (BOT_API_BASE_URL={handle.url})", flush=True)
    if state is not None:
        print(f"State file:     {state}", flush=True)
    stopped = asyncio.Event()
    with contextlib.suppress(NotImplementedError):  # SIGTERM saves the state too
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopped.set)
    try:
        await stopped.wait()
    finally:
        await handle.stop()


def main() -> None:
    """Parse arguments and serve until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument(
        "--state", type=Path, default=None, metavar="FILE",
        help="keep the world (users, chats, messages) in this JSON file across restarts",
    )
    parser.add_argument(
        "--webhook-spread", action="append", default=[], metavar="URL",
        help="deliver webhook updates to one of these URLs at random (repeat the option)",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args.host, args.port, args.state, args.webhook_spread))


if __name__ == "__main__":
    main()
