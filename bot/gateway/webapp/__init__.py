"""The live table as a Telegram Mini App: its page, its WebSocket and its actions
(docs/webapp.md)."""
