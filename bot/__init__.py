"""The Telegram host: turns group chats into card tables (python-telegram-bot v22)."""
