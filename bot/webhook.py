"""Webhook mode: Telegram POSTs each update to the bot's own aiohttp server.

:func:`serve` runs the Application through the steps ``run_polling`` takes (initialize,
``post_init``, start; then stop, ``post_stop``, shutdown, ``post_shutdown``), with an
aiohttp server on ``WEBHOOK_LISTEN:WEBHOOK_PORT`` in place of the poller. It answers
POSTs on ``WEBHOOK_PATH``:

* the ``X-Telegram-Bot-Api-Secret-Token`` header must equal ``WEBHOOK_SECRET``
  (compared in constant time); a request without it or with another gets 403 and its
  body is never read;
* the body is read like an update of a getUpdates batch (:func:`bot.intake.screened`):
  an update the bot cannot read is answered 200 and ignored, since any other answer would
  make Telegram send it again and again and hold up its chat; a body that is not JSON
  gets 400;
* a readable update goes on the Application's queue and is answered 200 at once.

PTB's own ``run_webhook`` serves with tornado, answers 400 to an update it cannot read
and reads one with a required field missing; ours is aiohttp, the HTTP library the bot
already uses, and reads updates as polling does.

Starting, the server listens first, then ``setWebhook`` is called (the URL, the secret,
every update type, pending updates kept). Several workers may set the same URL; the
call is idempotent. Stopping (SIGTERM or SIGINT), the server stops taking requests
(Telegram keeps what it could not deliver and sends it again, to another worker or
after the restart), the updates already taken are handled, and ``post_stop`` lets the
outbox send while the HTTP client is still open. The webhook is never deleted on stop:
other workers may still be serving it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import signal
from typing import Any

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from bot.config import Settings
from bot.intake import screened

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def webhook_app(app: Application, path: str, secret: str) -> web.Application:  # type: ignore[type-arg]
    """The aiohttp application that takes Telegram's POSTs on ``path`` into ``app``."""
    expected = secret.encode()

    async def receive(request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER)
        if given is None or not hmac.compare_digest(given.encode("utf-8", "replace"), expected):
            log.warning("webhook request from %s refused: %s secret token", request.remote,
                        "no" if given is None else "a wrong")
            return web.Response(status=403, text="Forbidden")
        try:
            raw: Any = json.loads(await request.read())
        except ValueError:
            log.warning("webhook request from %s refused: not JSON", request.remote)
            return web.Response(status=400, text="Bad Request")
        for update in screened([raw], app.bot):
            app.bot.insert_callback_data(update)
            await app.update_queue.put(update)
        return web.Response(status=200)

    server = web.Application()
    server.router.add_post(path, receive)
    return server


async def serve(app: Application, settings: Settings) -> None:  # type: ignore[type-arg]
    """Run ``app`` on the webhook until SIGTERM or SIGINT."""
    assert settings.webhook_secret is not None  # Settings refuses a webhook without one
    secret = settings.webhook_secret.get_secret_value()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    runner = web.AppRunner(webhook_app(app, settings.webhook_path, secret), access_log=None,
                           shutdown_timeout=1.0)
    await app.initialize()
    try:
        if app.post_init:
            await app.post_init(app)
        await app.start()
        try:
            await runner.setup()
            try:
                await web.TCPSite(runner, settings.webhook_listen, settings.webhook_port).start()
            except OSError as exc:
                raise SystemExit(f"webhook: cannot listen on {settings.webhook_listen}:"
                                 f"{settings.webhook_port}: {exc.strerror or exc}") from None
            await app.bot.set_webhook(settings.webhook_endpoint, secret_token=secret,
                                      allowed_updates=Update.ALL_TYPES,
                                      drop_pending_updates=False)
            log.info("webhook %s set; listening on %s:%d", settings.webhook_endpoint,
                     settings.webhook_listen, settings.webhook_port)
            await stop.wait()
            log.info("stopping: no more webhook requests taken")
        finally:
            await runner.cleanup()
            await app.stop()
            if app.post_stop:
                await app.post_stop(app)
    finally:
        await app.shutdown()
        if app.post_shutdown:
            await app.post_shutdown(app)
