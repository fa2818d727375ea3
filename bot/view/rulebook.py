"""The /rules texts: each game's own (:attr:`games.engine.GameTexts.rules`), as Telegram
HTML in messages of Telegram's size; and which game a player means by a name."""

from __future__ import annotations

import html
import re

from games import registry

CHUNK = 3900


def rules_text(game: str, lang: str) -> str | None:
    """The rules of ``game`` in ``lang`` (or the other language), None if no file exists."""
    try:
        texts = registry.texts_of(game).rules
    except KeyError:
        return None
    return next((texts[c] for c in (lang, "en", "ru") if c in texts), None)


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


_ITEM = re.compile(r"([-*]|\d+\.)\s+")


def _blocks(markdown: str) -> list[tuple[str, str]]:
    """The Markdown's blocks, each ``(kind, text)`` on one line: a paragraph's lines, and a
    list item's indented continuation lines, joined with spaces (the files are wrapped for
    editors; Telegram wraps for its reader). Kinds: ``blank``, ``heading``, ``item``,
    ``text``."""
    out: list[tuple[str, str]] = []
    for raw in markdown.splitlines():
        line = raw.strip()
        kind = out[-1][0] if out else "blank"
        if not line:
            out.append(("blank", ""))
        elif re.match(r"#{1,6}\s", line):
            out.append(("heading", line))
        elif _ITEM.match(line):
            out.append(("item", line))
        elif kind == "text" or (kind == "item" and raw[:1].isspace()):
            out[-1] = (kind, f"{out[-1][1]} {line}")
        else:
            out.append(("text", line))
    return out


def to_html(markdown: str) -> str:
    """The rules' Markdown as Telegram HTML: a ``#`` heading in bold, ``- `` items as
    bullets, numbered items as they are, ``**bold**``, ``*italic*`` and ``code``; every
    other character escaped. A paragraph or an item is one line, however the file wraps it
    (no line break inside a paragraph); no tag spans a line, so the text may be cut at any
    line break."""
    lines = []
    for kind, line in _blocks(markdown):
        if kind == "heading":
            lines.append("<b>" + _inline(re.sub(r"^#{1,6}\s+", "", line).strip()) + "</b>")
        elif kind == "item" and line[0] in "-*":
            lines.append("• " + _inline(re.sub(r"^[-*]\s+", "", line)))
        else:
            lines.append(_inline(line))
    return "\n".join(lines)


def _name(text: str) -> str:
    """A game's name as typed, made comparable: case, ё, hyphens, underscores and brackets
    do not count ("Twenty-one", "twenty_one", "TWENTY ONE" are one name)."""
    text = text.lower().replace("ё", "е")
    return " ".join(re.sub(r"[-_()«»\"']", " ", text).split())


def game_of(name: str) -> str | None:
    """The game a player means by ``name`` (/rules Chemin de fer, /rules очко, /rules stud):
    its registry name, display names in every language and the usual aliases, whatever the
    case; None for a name no game answers to."""
    wanted = _name(name)
    for game in registry.GAMES:
        texts = registry.texts_of(game)
        names = (game, *texts.name.values(), *texts.aliases)
        if wanted in {_name(n) for n in names if n}:
            return game
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
