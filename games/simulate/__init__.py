"""Play or enumerate many coups without Telegram; print figures as JSON.

Each game has a module here with ``add_arguments(parser)`` and
``run(args) -> dict``; ``python -m games.simulate GAME ...`` dispatches.
"""
