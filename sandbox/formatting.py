"""Telegram's parse_mode handling: markup -> (plain text, entities).

Offsets and lengths of entities are in UTF-16 code units, as Telegram sends
them. Malformed markup raises ApiError with Telegram's "can't parse entities"
texts, so a bot that sends a bad tag or an unescaped MarkdownV2 character
fails here as it would against the real server.
"""

from __future__ import annotations

import html
import re
from typing import Any

from sandbox.spec import ApiError, bad_request


def utf16_len(text: str) -> int:
    """Length of a string in UTF-16 code units (Telegram's unit for offsets and limits)."""
    return len(text.encode("utf-16-le")) // 2


def _parse_error(text: str) -> ApiError:
    return bad_request(f"can't parse entities: {text}")


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0  # UTF-16 units so far
        self.entities: list[dict[str, Any]] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.length += utf16_len(text)

    def text(self) -> str:
        return "".join(self.parts)

    def close(self, kind: str, start: int, **extra: Any) -> None:
        if self.length > start:
            entity: dict[str, Any] = {"type": kind, "offset": start, "length": self.length - start}
            entity.update(extra)
            self.entities.append(entity)


_HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
    "tg-time": "date_time",
}
_ATTR = re.compile(r"""([a-zA-Z_-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


def parse_html(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Parse Telegram's HTML subset."""
    out = _Builder()
    stack: list[tuple[str, int, dict[str, Any]]] = []
    i = 0
    n = len(source)
    while i < n:
        char = source[i]
        if char == "<":
            end = source.find(">", i)
            offset = len(source[:i].encode())
            if end == -1:
                raise _parse_error(f"Unclosed start tag at byte offset {offset}")
            inner = source[i + 1 : end].strip()
            if inner.startswith("/"):
                name = inner[1:].strip().lower()
                if not stack:
                    raise _parse_error(f"Unexpected end tag at byte offset {offset}")
                open_name, start, extra = stack.pop()
                if name != open_name:
                    raise _parse_error(
                        f'Unmatched end tag at byte offset {offset}, expected "</{open_name}>", '
                        f'found "</{name}>"'
                    )
                kind = _HTML_TAGS[open_name]
                if kind == "blockquote" and extra.pop("expandable", False):
                    kind = "expandable_blockquote"
                out.close(kind, start, **extra)
            else:
                name = inner.split(None, 1)[0].lower() if inner else ""
                if name not in _HTML_TAGS:
                    raise _parse_error(f'Unsupported start tag "{name}" at byte offset {offset}')
                attrs = {
                    m.group(1).lower(): html.unescape(m.group(2) or m.group(3) or m.group(4) or "")
                    for m in _ATTR.finditer(inner)
                }
                extra = {}
                if name == "a":
                    extra["url"] = attrs.get("href", "")
                elif name == "span" and attrs.get("class") != "tg-spoiler":
                    raise _parse_error(
                        f'Tag "span" must have class "tg-spoiler" at byte offset {offset}'
                    )
                elif name == "code" and "class" in attrs and stack and stack[-1][0] == "pre":
                    stack[-1][2]["language"] = attrs["class"].removeprefix("language-")
                elif name == "blockquote" and "expandable" in inner.lower().split():
                    extra["expandable"] = True
                elif name == "tg-emoji":
                    extra["custom_emoji_id"] = attrs.get("emoji-id", "")
                elif name == "tg-time":
                    if not attrs.get("unix", "").isdigit():
                        raise _parse_error(
                            f'Tag "tg-time" must have an integer "unix" at byte offset {offset}')
                    extra["unix_time"] = int(attrs["unix"])
                    if attrs.get("format"):
                        extra["date_time_format"] = attrs["format"]
                stack.append((name, out.length, extra))
            i = end + 1
            continue
        if char == "&":
            match = re.match(r"&(#\d+|#x[0-9a-fA-F]+|lt|gt|amp|quot);", source[i:])
            if match:
                out.add(html.unescape(match.group(0)))
                i += len(match.group(0))
                continue
        out.add(char)
        i += 1
    if stack:
        raise _parse_error(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    # Nested <code> inside <pre> is one pre entity with a language.
    entities = [
        e
        for e in out.entities
        if not (
            e["type"] == "code"
            and any(
                p["type"] == "pre" and p["offset"] == e["offset"] and p["length"] == e["length"]
                for p in out.entities
            )
        )
    ]
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return out.text(), entities


_MDV2_RESERVED = set("_*[]()~`>#+-=|{}.!")
_MDV2_MARKS = [
    ("||", "spoiler"),
    ("__", "underline"),
    ("*", "bold"),
    ("_", "italic"),
    ("~", "strikethrough"),
]
_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "text_link": "TextUrl",
    "code": "Code",
    "pre": "Pre",
}


def _find_unescaped(source: str, mark: str, start: int) -> int:
    j = start
    while j < len(source):
        if source[j] == "\\":
            j += 2
            continue
        if source.startswith(mark, j):
            return j
        j += 1
    return -1


def parse_markdown_v2(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Parse MarkdownV2, refusing unescaped reserved characters as Telegram does."""
    out = _Builder()
    stack: list[tuple[str, int, int]] = []  # (kind, start, byte offset of the mark)
    i = 0
    n = len(source)
    line_start = True
    quote_start: int | None = None
    while i < n:
        char = source[i]
        offset = len(source[:i].encode())
        if char == "\\":
            if i + 1 < n:
                out.add(source[i + 1])
                i += 2
                line_start = False
                continue
            raise _parse_error(
                f"Character '\\' is reserved and must be escaped at byte offset {offset}"
            )
        if char == "`":
            fence = source.startswith("```", i)
            mark = "```" if fence else "`"
            end = _find_unescaped(source, mark, i + len(mark))
            if end == -1:
                kind = "Pre" if fence else "Code"
                raise _parse_error(f"Can't find end of {kind} entity at byte offset {offset}")
            body = source[i + len(mark) : end]
            extra: dict[str, Any] = {}
            if fence and "\n" in body:
                first, rest = body.split("\n", 1)
                if first and " " not in first:
                    extra["language"] = first
                    body = rest
            body = re.sub(r"\\([`\\])", r"\1", body)
            start = out.length
            out.add(body)
            out.close("pre" if fence else "code", start, **extra)
            i = end + len(mark)
            line_start = False
            continue
        if char == ">" and line_start:
            if quote_start is None:
                quote_start = out.length
            i += 1
            line_start = False
            continue
        if char == "[":
            stack.append(("text_link", out.length, offset))
            i += 1
            line_start = False
            continue
        if char == "]" and stack and stack[-1][0] == "text_link":
            _, start, _mark = stack.pop()
            match = re.match(r"\]\(((?:[^)\\]|\\.)*)\)", source[i:])
            if not match:
                raise _parse_error(f"Can't find end of TextUrl entity at byte offset {_mark}")
            url = re.sub(r"\\(.)", r"\1", match.group(1))
            out.close("text_link", start, url=url)
            i += len(match.group(0))
            continue
        matched = False
        for mark, kind in _MDV2_MARKS:
            if source.startswith(mark, i):
                if stack and stack[-1][0] == kind:
                    _, start, _mark = stack.pop()
                    out.close(kind, start)
                else:
                    stack.append((kind, out.length, offset))
                i += len(mark)
                matched = True
                break
        if matched:
            line_start = False
            continue
        if char in _MDV2_RESERVED:
            raise _parse_error(
                f"Character '{char}' is reserved and must be escaped with the preceding '\\'"
            )
        if char == "\n":
            if quote_start is not None and not source.startswith(">", i + 1):
                out.close("blockquote", quote_start)
                quote_start = None
            line_start = True
        else:
            line_start = False
        out.add(char)
        i += 1
    if stack:
        kind, _start, mark_offset = stack[-1]
        raise _parse_error(f"Can't find end of {_NAMES[kind]} entity at byte offset {mark_offset}")
    if quote_start is not None:
        out.close("blockquote", quote_start)
    out.entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return out.text(), out.entities


def parse_markdown(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Parse legacy Markdown: *bold*, _italic_, `code`, ```pre```, [text](url)."""
    out = _Builder()
    i = 0
    n = len(source)
    marks = {"*": "bold", "_": "italic", "`": "code"}
    while i < n:
        char = source[i]
        offset = len(source[:i].encode())
        if char == "\\" and i + 1 < n and source[i + 1] in "*_`[":
            out.add(source[i + 1])
            i += 2
            continue
        if source.startswith("```", i):
            end = source.find("```", i + 3)
            if end == -1:
                raise _parse_error(f"Can't find end of the entity starting at byte offset {offset}")
            start = out.length
            out.add(source[i + 3 : end])
            out.close("pre", start)
            i = end + 3
            continue
        if char in marks:
            end = source.find(char, i + 1)
            if end == -1:
                raise _parse_error(f"Can't find end of the entity starting at byte offset {offset}")
            start = out.length
            out.add(source[i + 1 : end])
            out.close(marks[char], start)
            i = end + 1
            continue
        if char == "[":
            match = re.match(r"\[([^\]]*)\]\(([^)]*)\)", source[i:])
            if match:
                start = out.length
                out.add(match.group(1))
                out.close("text_link", start, url=match.group(2))
                i += len(match.group(0))
                continue
        out.add(char)
        i += 1
    return out.text(), out.entities


# A command is a whole token, as Telegram (TDLib) finds it: no word character, "/", "<" or
# ">" right before or after it, so "a/b", "</code>" and "/x>" hold none.
_COMMAND = re.compile(
    r"(?<![\w/<>])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/<>])"
)
_URL = re.compile(r"https?://[^\s<>\"']+")
_MENTION = re.compile(r"(?<![\w@])@[A-Za-z0-9_]{5,32}")
# Markup no detected entity goes inside: its text is code, a link or a custom emoji already.
_WHOLE = {"code", "pre", "text_link", "text_mention", "custom_emoji", "date_time"}


def auto_entities(
    text: str, markup: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Entities Telegram detects by itself in a text: URLs, commands, @mentions. None overlaps
    another or lies across code, pre, a text link or a custom emoji of the `markup` entities."""
    taken = [(e["offset"], e["offset"] + e["length"]) for e in markup or [] if e["type"] in _WHOLE]
    found: list[dict[str, Any]] = []
    for pattern, kind in ((_URL, "url"), (_COMMAND, "bot_command"), (_MENTION, "mention")):
        for match in pattern.finditer(text):
            start = utf16_len(text[: match.start()])
            end = start + utf16_len(match.group(0))
            if any(start < stop and begin < end for begin, stop in taken):
                continue
            taken.append((start, end))
            found.append({"type": kind, "offset": start, "length": end - start})
    found.sort(key=lambda e: e["offset"])
    return found


def render(text: str, parse_mode: str | None) -> tuple[str, list[dict[str, Any]]]:
    """Apply a parse_mode; unknown modes are refused like Telegram does."""
    if parse_mode is None or parse_mode == "":
        return text, []
    mode = parse_mode.lower()
    if mode == "html":
        return parse_html(text)
    if mode == "markdownv2":
        return parse_markdown_v2(text)
    if mode == "markdown":
        return parse_markdown(text)
    raise bad_request(f"unsupported parse_mode {parse_mode}")
