"""``python -m bot.healthcheck [--ready]``: the container's health probe.

Asks the bot's own health port (HEALTH_PORT, on this machine) for ``/healthz`` (or
``/readyz`` with ``--ready``) and exits 0 on a 200, 1 otherwise, with the reason on
standard error. The image needs no curl for it: Python is there already.
"""

from __future__ import annotations

import argparse
import sys
import urllib.error
import urllib.request

from bot.config import Settings

TIMEOUT = 3.0


def probe(host: str, port: int, path: str) -> tuple[bool, str]:
    """(healthy, what was answered or why not)."""
    local = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    url = f"http://{local}:{port}{path}"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:
            return resp.status == 200, f"{url}: {resp.status} {resp.read().decode().strip()}"
    except urllib.error.HTTPError as exc:
        return False, f"{url}: {exc.code} {exc.read().decode().strip()}"
    except OSError as exc:
        return False, f"{url}: {exc}"


def main() -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(prog="python -m bot.healthcheck", description=__doc__)
    parser.add_argument("--ready", action="store_true", help="ask /readyz instead of /healthz")
    args = parser.parse_args()
    settings = Settings()
    if settings.health_port == 0:
        print("HEALTH_PORT=0: the health port is off, nothing to ask", file=sys.stderr)
        sys.exit(0)
    ok, said = probe(settings.health_host, settings.health_port,
                     "/readyz" if args.ready else "/healthz")
    print(said, file=sys.stdout if ok else sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
