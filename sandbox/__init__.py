"""The local sandbox: a fake Telegram Bot API server, a control API and a web page.

The real bot talks to it (python-telegram-bot with base_url) instead of
Telegram; tests and the page drive the "people" through the control API.
"""

from sandbox.state import BOT_ID, BOT_USERNAME

__all__ = ["BOT_ID", "BOT_USERNAME"]
