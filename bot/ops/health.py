"""The operator's HTTP port: ``/healthz``, ``/readyz`` and ``/metrics`` (HEALTH_PORT).

A small aiohttp server of its own, started in ``post_init`` and stopped in
``post_stop``, so it answers the same in polling and in webhook mode:

* ``/healthz``: 200 ``ok`` while the process's event loop runs (liveness);
* ``/readyz``: 200 ``ready`` once start-up finished and while the database answers a
  round trip within ``READY_TIMEOUT`` seconds; else 503 with the reason;
* ``/metrics``: Prometheus' text format (:mod:`bot.ops.metrics`), the database figures
  read at scrape time.

It never shows a table, a player or a card. A port that cannot be bound is logged
as an error and the bot plays on without it.
"""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from bot.ops import metrics
from storage.inspect import Inspector

log = logging.getLogger(__name__)

READY_TIMEOUT = 2.0


class HealthServer:
    """The health and metrics endpoints over one storage inspector."""

    def __init__(self, inspector: Inspector, host: str, port: int) -> None:
        self.inspector = inspector
        self.host = host
        self.port = port
        self.ready = False
        self.runner: web.AppRunner | None = None
        self.bound: int | None = None
        """The port actually listened on (``port`` 0 is not asked for here: it means off)."""

    def app(self) -> web.Application:
        """The aiohttp application (also what the tests serve)."""
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/readyz", self.readyz)
        app.router.add_get("/metrics", self.metrics)
        return app

    async def start(self) -> bool:
        """Listen; False (logged) when the port cannot be bound."""
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            log.error("health port %s:%s not available (%s): no /healthz, /readyz, /metrics",
                      self.host, self.port, exc.strerror or exc)
            await runner.cleanup()
            return False
        self.runner = runner
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        self.bound = sockets[0].getsockname()[1] if sockets else self.port
        log.info("health and metrics on http://%s:%s/ (healthz, readyz, metrics)",
                 self.host, self.bound)
        return True

    def set_ready(self, ready: bool) -> None:
        """Start-up finished (True), or the stop began (False)."""
        self.ready = ready
        metrics.READY.set(1 if ready else 0)

    async def stop(self) -> None:
        """Stop listening (idempotent)."""
        self.set_ready(False)
        if self.runner is not None:
            runner, self.runner = self.runner, None
            await runner.cleanup()

    async def healthz(self, request: web.Request) -> web.Response:
        """Liveness: the event loop answers."""
        return web.Response(text="ok\n")

    async def readyz(self, request: web.Request) -> web.Response:
        """Readiness: started, and the database answers."""
        if not self.ready:
            return web.Response(status=503, text="starting or stopping\n")
        try:
            await asyncio.wait_for(self.inspector.ping(), READY_TIMEOUT)
        except Exception as exc:  # whatever the driver raises: not ready, and why
            log.warning("readiness: the database does not answer (%s)", type(exc).__name__)
            return web.Response(status=503, text=f"database: {type(exc).__name__}\n")
        return web.Response(text="ready\n")

    async def metrics(self, request: web.Request) -> web.Response:
        """Every metric in Prometheus' text format; the database's figures read now."""
        try:
            await asyncio.wait_for(metrics.refresh(self.inspector), READY_TIMEOUT)
        except Exception as exc:  # the counters are still worth serving
            log.warning("metrics: database figures not read (%s)", type(exc).__name__)
        body = generate_latest(REGISTRY)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def start_health(inspector: Inspector, host: str, port: int) -> HealthServer | None:
    """The health server on ``host:port``; None when ``port`` is 0 (off) or not bound."""
    if port == 0:
        return None
    server = HealthServer(inspector, host, port)
    return server if await server.start() else None
