"""Webhook mode: Telegram POSTs each update to the bot's own aiohttp server.

:func:`serve` runs the Application through the steps ``run_polling`` takes (initialize,
``post_init``, start; then stop, ``post_stop``, shutdown, ``post_shutdown``), with an
aiohttp server on ``WEBHOOK_LISTEN:WEBHOOK_PORT`` in place of the poller. It answers
POSTs on ``WEBHOOK_PATH``:

* the ``X-Telegram-Bot-Api-Secret-Token`` header must equal ``WEBHOOK_SECRET``
  (compared in constant time); a request without it or with another gets 403 and its
  body is never read;
* the body is read like an update of a getUpdates batch (:func:`bot.gateway.intake.screened`):
  an update the bot cannot read is answered 200 and ignored, since any other answer would
  make Telegram send it again and again and hold up its chat; a body that is not JSON
  gets 400;
* a readable update is handled by the Application's handlers (through its update
  processor, which keeps ``concurrent_updates``) and answered 200 once they are done,
  so that a worker killed meanwhile has taken nothing: Telegram sends the update again.
  A handler that fails still gets the update answered 200 (the error handler logged it;
  a retry would only fail again and hold up its chat). Telegram keeps a chat's updates
  in order and sends the next only after this answer; nothing a handler waits for needs
  that next update (the chat locks are held for a commit at most), and other chats are
  handled meanwhile. Past :data:`HANDLING_WAIT` the update is answered 200 anyway and
  its handling goes on (logged), well before Telegram gives up and sends it again.

PTB's own ``run_webhook`` serves with tornado, answers 400 to an update it cannot read
and reads one with a required field missing; ours is aiohttp, the HTTP library the bot
already uses, and reads updates as polling does.

Starting, the server listens first, then ``setWebhook`` is called (the URL, the secret,
every update type, pending updates kept). Several workers may set the same URL; the
call is idempotent. Stopping (SIGTERM or SIGINT), the rate limiter stops holding sends
(:func:`bot.outbox.ratelimit.stopping`), the server stops taking requests (Telegram keeps what
it could not deliver and sends it again, to another worker or after the restart), the
updates being handled are finished and answered, and ``post_stop`` lets the outbox send
while the HTTP client is still open. The webhook is never deleted on stop: other
workers may still be serving it.
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
from bot.gateway.intake import screened
from bot.outbox.ratelimit import stopping

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HANDLING_WAIT = 25.0
"""Seconds a POST waits for its update's handling before it is answered 200 regardless
(Telegram waits about a minute for an answer, then counts the delivery as failed)."""


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
            await handled(update)
        return web.Response(status=200)

    async def handled(update: Update) -> None:
        # a task of the Application's: its stop waits for it, and a stop or a hung-up
        # request that ends this wait leaves the handling going on
        handling = app.create_task(
            app.update_processor.process_update(update, app.process_update(update)),
            update=update, name=f"webhook:update:{update.update_id}")
        try:
            done, _ = await asyncio.wait({handling}, timeout=HANDLING_WAIT)
        except asyncio.CancelledError:
            log.warning("update %s not answered: the server stopped while it was handled",
                        update.update_id)
            raise
        if not done:
            log.warning("update %s still handled after %.0f s: answered, its handling goes on",
                        update.update_id, HANDLING_WAIT)

    server = web.Application()
    server.router.add_post(path, receive)
    return server


def webhook_runner(app: Application, path: str, secret: str) -> web.AppRunner:  # type: ignore[type-arg]
    """The runner of :func:`webhook_app`. Its cleanup closes the port, then waits for every
    request under way to be answered: each is within :data:`HANDLING_WAIT`, never cut."""
    return web.AppRunner(webhook_app(app, path, secret), access_log=None,
                         shutdown_timeout=HANDLING_WAIT + 1.0)


def run_webhook(app: Application, settings: Settings) -> None:  # type: ignore[type-arg]
    """:func:`serve` in the current event loop (uvloop's, if run() set it), closed after."""
    try:
        loop = asyncio.get_event_loop()
    except RuntimeError:  # none set (Python 3.14 no longer makes one)
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
    try:
        loop.run_until_complete(serve(app, settings))
    finally:
        loop.close()


async def serve(app: Application, settings: Settings) -> None:  # type: ignore[type-arg]
    """Run ``app`` on the webhook until SIGTERM or SIGINT."""
    assert settings.webhook_secret is not None  # Settings refuses a webhook without one
    secret = settings.webhook_secret.get_secret_value()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    runner = webhook_runner(app, settings.webhook_path, secret)
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
            # the updates being handled must not wait for their groups' windows
            stopping(app.bot)
            await runner.cleanup()
            await app.stop()
            if app.post_stop:
                await app.post_stop(app)
    finally:
        await app.shutdown()
        if app.post_shutdown:
            await app.post_shutdown(app)
