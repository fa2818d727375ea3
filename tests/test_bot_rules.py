"""/rules: the rules files as Telegram HTML, in messages Telegram takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.view.rulebook import chunks, rules_text, to_html
from games.texts import RULES_DIR
from sandbox.formatting import render

SAMPLE = """# Chemin de fer <6 decks>

**Bank auction.** Bids & passes, *then* the `cut`.
- Banker wins: **every** stake.
- Punters win: 2 < 3"""


def test_the_rules_markdown_becomes_telegram_html() -> None:
    assert to_html(SAMPLE) == (
        "<b>Chemin de fer &lt;6 decks&gt;</b>\n"
        "\n"
        "<b>Bank auction.</b> Bids &amp; passes, <i>then</i> the <code>cut</code>.\n"
        "• Banker wins: <b>every</b> stake.\n"
        "• Punters win: 2 &lt; 3")
    text, entities = render(to_html(SAMPLE), "HTML")
    assert text.splitlines()[0] == "Chemin de fer <6 decks>"
    assert text.splitlines()[3] == "• Banker wins: every stake."
    assert [(e["type"], text[e["offset"]:e["offset"] + e["length"]]) for e in entities] == [
        ("bold", "Chemin de fer <6 decks>"), ("bold", "Bank auction."), ("italic", "then"),
        ("code", "cut"), ("bold", "every")]


@pytest.mark.parametrize("path", sorted(RULES_DIR.glob("*.md")), ids=lambda p: p.name)
def test_every_rules_file_reads_as_formatted_text_in_messages_telegram_takes(path: Path) -> None:
    game, lang = path.name.split(".")[:2]
    source = rules_text(game, lang)
    assert source is not None
    parts = chunks(to_html(source))
    assert parts
    shown = []
    for part in parts:
        text, entities = render(part, "HTML")  # raises on markup Telegram refuses
        assert len(text) <= 4096
        shown.append(text)
        if len(shown) == 1:  # the title, in bold
            assert entities[0]["type"] == "bold" and entities[0]["offset"] == 0
    whole = "\n".join(shown)
    assert "**" not in whole
    assert not any(line.startswith("#") for line in whole.splitlines())
    assert shown[0].splitlines()[0] == source.splitlines()[0].lstrip("# ").strip()
