"""`python -m sandbox --host 127.0.0.1 --port 8081`: run the sandbox server alone."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging

from sandbox.server import start_sandbox


async def _serve(host: str, port: int) -> None:
    handle = await start_sandbox(host, port)
    print(f"Sandbox page:   {handle.url}/", flush=True)
    print(f"Bot API base:   {handle.bot_api_url}  (BOT_API_BASE_URL={handle.url})", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await handle.stop()


def main() -> None:
    """Parse arguments and serve until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args.host, args.port))


if __name__ == "__main__":
    main()
