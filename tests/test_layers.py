"""The shape of bot/: its layers import only downwards, and it knows no game.

bot/ is cut by responsibility (README, "The code"): ``view`` (pure: from typed views and
events to texts and keyboards) under ``outbox`` (what a step sends, and the courier) under
``table`` (the table service) under ``workers`` (several processes) under ``gateway``
(what speaks Telegram and HTTP), all above ``ops`` (metrics, logs, the health port); the
composition root ``compose`` (building them all) and the entry points ``app``, ``admin``
and ``healthcheck`` stand on top.
A module imports only from its own layer or a lower one: the service never imports the
gateway, delivery never imports the service.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from games import registry
from games.engine import CONTRACT_EVENTS

BOT = Path(__file__).resolve().parent.parent / "bot"

# Lower first. A module's rank is its longest listed prefix's.
RANKS: dict[str, int] = {
    "bot.config": 0, "bot.background": 0, "bot.ops": 0, "bot.view.locale": 0,
    "bot.view": 1,
    "bot.outbox": 2,
    "bot.table": 3,
    "bot.workers": 4,
    "bot.gateway": 5,
    "bot.app": 7, "bot.compose": 7, "bot.admin": 7, "bot.healthcheck": 7, "bot.__main__": 8,
}


def rank(module: str) -> int:
    best = max((p for p in RANKS if module == p or module.startswith(p + ".")), key=len)
    return RANKS[best]


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(BOT.rglob("*.py")):
        parts = path.relative_to(BOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports(name: str, path: Path) -> set[str]:
    """The bot modules ``name`` imports (``from bot.x import y`` counts ``bot.x.y`` when
    that is a module)."""
    known = modules()
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("bot")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("bot"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in known else node.module)
    return found - {name}


@pytest.mark.parametrize("name", sorted(modules()))
def test_a_module_imports_only_its_own_layer_or_lower(name: str) -> None:
    path = modules()[name]
    upward = sorted(m for m in imports(name, path) if m != "bot" and rank(m) > rank(name))
    assert upward == [], f"{name} (layer {rank(name)}) imports {upward}"


def test_every_bot_module_is_in_a_layer() -> None:
    assert all(any(n == p or n.startswith(p + ".") for p in RANKS)
               for n in modules() if n != "bot")


def test_the_layers_are_real() -> None:
    # the check above can fail: the service does import the view and the outbox's kinds
    plan = imports("bot.table.plan", modules()["bot.table.plan"])
    assert {"bot.view.screens", "bot.outbox.kinds"} <= plan
    assert rank("bot.view.screens") < rank("bot.table.tables") < rank("bot.gateway.buttons")


def game_vocabulary() -> set[str]:
    """Every name a game brings that the host must not know: the games' names, their event
    kinds (the contract's own aside), their facts' keys, their settings and phases."""
    texts = registry.texts()
    words: set[str] = set(registry.GAMES)
    for lang in ("en", "ru"):
        words |= set(texts.events.get(lang, {})) - CONTRACT_EVENTS
        words |= set(texts.facts.get(lang, {}))
        words |= set(texts.settings.get(lang, {}))
        words |= {k.split(":", 1)[1] for k in texts.words.get(lang, {}) if ":" in k}
    return words


def literals(path: Path) -> set[str]:
    """The string literals of a module, docstrings and comments aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)}
    return {n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs}


# Words a game uses that are also the host's own, in the host's own sense.
HOST_SENSE = frozenset({
    "banker",      # Settlement.banker, worded "(banker)" in a result
    "bank",        # TableView.bank, "bank 40" in the header
    "timeout",     # the host's own setting: seconds to decide
    "idle",        # the contract's phase of a table nobody plays at yet
    "stake",       # SeatView.stake, "stake 10" on a seat line
    "pot",         # TableView.pot, "pot 12" in the header
    "points",      # the contract's Points, worded by the host; a noun's plural
    "decks",       # a noun's plural (/settings' units)
    "total",       # a wallet's total (the admin's export)
})


def test_bot_names_no_game_no_game_event_and_no_game_fact() -> None:
    vocabulary = game_vocabulary() - HOST_SENSE
    assert {"baccarat", "coup_settled", "bank_offered", "ace_four", "hint"} <= vocabulary | {
        "hint"}
    found = {}
    for name, path in modules().items():
        named = {s for s in literals(path) if s in vocabulary}
        named |= {w for s in literals(path) for w in re.findall(r"[a-z_]+", s)
                  if w in vocabulary and "_" in w}
        if named:
            found[name] = sorted(named)
    assert found == {}
