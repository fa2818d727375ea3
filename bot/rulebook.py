"""The /rules texts: ``bot/rules/<game>.<lang>.md``, written from docs/rules.md per game."""

from __future__ import annotations

import html
import re
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


# The Markdown our rules files use: **bold**, *italic*, `code`, within one line.
_INLINE = re.compile(r"\*\*(.+?)\*\*|\*(.+?)\*|`([^`]+)`")


def _inline(text: str) -> str:
    out: list[str] = []
    last = 0
    for m in _INLINE.finditer(text):
        out.append(html.escape(text[last:m.start()], quote=False))
        bold, italic, code = m.groups()
        if bold is not None:
            out.append(f"<b>{_inline(bold)}</b>")
        elif italic is not None:
            out.append(f"<i>{_inline(italic)}</i>")
        else:
            out.append(f"<code>{html.escape(code, quote=False)}</code>")
        last = m.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


def to_html(markdown: str) -> str:
    """The rules' Markdown as Telegram HTML: a ``#`` heading in bold, ``- `` items as
    bullets, ``**bold**``, ``*italic*`` and ``code``; every other character escaped. No tag
    spans a line, so the text may be cut at any line break."""
    lines = []
    for line in markdown.splitlines():
        heading = re.match(r"#{1,6}\s+(.*)", line)
        if heading:
            lines.append(f"<b>{_inline(heading.group(1).strip())}</b>")
        elif re.match(r"[-*]\s+", line):
            lines.append("• " + _inline(re.sub(r"^[-*]\s+", "", line)))
        else:
            lines.append(_inline(line))
    return "\n".join(lines)


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
