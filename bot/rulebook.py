"""The /rules texts: ``bot/rules/<game>.<lang>.md``, written from docs/rules.md per game."""

from __future__ import annotations

from pathlib import Path

RULES_DIR = Path(__file__).parent / "rules"
CHUNK = 3900


def rules_text(game: str, lang: str) -> str | None:
    """The rules of ``game`` in ``lang`` (or the other language), None if no file exists."""
    for candidate in (lang, "en", "ru"):
        path = RULES_DIR / f"{game}.{candidate}.md"
        try:
            return path.read_text(encoding="utf-8")
        except (FileNotFoundError, IsADirectoryError):
            continue
    return None


def chunks(text: str, size: int = CHUNK) -> list[str]:
    """Split a long text at paragraph or line breaks into Telegram-sized messages."""
    out: list[str] = []
    rest = text.strip()
    while len(rest) > size:
        cut = rest.rfind("\n\n", 0, size)
        if cut <= 0:
            cut = rest.rfind("\n", 0, size)
        if cut <= 0:
            cut = size
        out.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        out.append(rest)
    return out
