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
import asyncio
import re
from collections.abc import Sequence
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
    "hand",        # a noun's singular (the poker rating's rated hands, the host's own count)
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


# ------------------------------------------- calls go one way, by any path

HIGHER = ("bot.workers", "bot.gateway")
"""The layers above the table service: they call it; it never calls them."""


def table_names(tree: ast.Module) -> set[str]:
    """The names a module imports from the table service (its classes, mostly)."""
    return {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
            and n.module and n.module.startswith("bot.table") for a in n.names}


def root(node: ast.expr) -> tuple[str, list[str]]:
    """The name an attribute chain starts from, and the attributes after it."""
    attrs: list[str] = []
    while isinstance(node, ast.Attribute):
        attrs.insert(0, node.attr)
        node = node.value
    return (node.id if isinstance(node, ast.Name) else "", attrs)


Function = ast.FunctionDef | ast.AsyncFunctionDef


def handed_down(path: Path) -> list[str]:
    """What a module of a higher layer does that makes the table service call it back: a
    function of its own (a method, a nested function, a lambda) put into another object's
    attribute or list, or any attribute of a table-layer object assigned (a patched
    collaborator). Table-layer objects: parameters annotated with a class imported from
    ``bot.table``, and ``self``'s attributes set from them."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = [f for f in ast.walk(tree) if isinstance(f, Function)]
    # functions defined inside a function: handed down by their bare name
    nested = {n.name for f in functions for n in ast.walk(f)
              if n is not f and isinstance(n, Function)}
    found: set[str] = set()
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
        found |= {f"{path.name}:{n.lineno} {ast.unparse(n)}"
                  for n in Scope(scope, table_names(tree), nested).findings()}
    return sorted(found, key=lambda f: int(f.split(":")[1].split()[0]))


class Scope:
    """A class (or a module) read for :func:`handed_down`."""

    def __init__(self, node: ast.Module | ast.ClassDef, table_types: set[str],
                 nested: set[str]) -> None:
        self.node = node
        self.nested = nested
        self.methods = {f.name for f in node.body if isinstance(f, Function)}
        self.typed = {a.arg for f in ast.walk(node) if isinstance(f, Function)
                      for a in f.args.args + f.args.kwonlyargs
                      if a.annotation is not None and any(
                          isinstance(n, ast.Name) and n.id in table_types
                          for n in ast.walk(a.annotation))}
        self.held = {t.attr for n in ast.walk(node) if isinstance(n, ast.Assign)
                     for t in n.targets if isinstance(t, ast.Attribute)
                     and root(t) == ("self", [t.attr]) and root(n.value)[0] in self.typed}

    def own_function(self, value: ast.expr) -> bool:
        name, attrs = root(value)
        return isinstance(value, ast.Lambda) or (
            name == "self" and len(attrs) == 1 and attrs[0] in self.methods) or (
            not attrs and name in self.nested)

    def table_object(self, target: ast.expr) -> bool:
        name, attrs = root(target)
        return (name in self.typed and bool(attrs)) or (
            name == "self" and len(attrs) >= 2 and attrs[0] in self.held)

    def findings(self) -> list[ast.AST]:
        out: list[ast.AST] = []
        for node in ast.walk(self.node):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if not isinstance(target, ast.Attribute):
                        continue
                    mine = root(target) == ("self", [target.attr])
                    if self.table_object(target) or (self.own_function(node.value)
                                                     and not mine):
                        out.append(node)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("append", "add", "extend", "insert") \
                    and any(self.own_function(a) for a in node.args):
                out.append(node)
        return out


@pytest.mark.parametrize("name", sorted(n for n in modules() if n.startswith(HIGHER)))
def test_nothing_above_the_table_service_hands_it_a_callback_or_patches_it(
        name: str) -> None:
    assert handed_down(modules()[name]) == []


def test_a_callback_handed_down_is_found(tmp_path: Path) -> None:
    # the check above can fail: the two ways the Mini App's server once had the table
    # service call it in the middle of a commit, and a nested function handed to a list
    module = tmp_path / "server.py"
    module.write_text(
        "from bot.table.lifecycle import Lifecycle\n"
        "class WebApp:\n"
        "    def __init__(self, lifecycle: Lifecycle) -> None:\n"
        "        self.tables = lifecycle.tables\n"
        "        self.tables.listeners.append(self.changed)\n"
        "        lifecycle.clock.watching = self.watching\n"
        "        self.pages = {}\n"
        "    def changed(self, chat_id: int) -> None: ...\n"
        "    def watching(self, chat_id: int, user_id: int) -> bool: ...\n"
        "def follow(tables: object) -> None:\n"
        "    def committed(chat_id: int) -> None: ...\n"
        "    tables.listeners.append(committed)\n", encoding="utf-8")
    assert handed_down(module) == [
        "server.py:5 self.tables.listeners.append(self.changed)",
        "server.py:6 lifecycle.clock.watching = self.watching",
        "server.py:12 tables.listeners.append(committed)"]


SERVICE = ("bot.table.tables", "bot.table.lifecycle", "bot.table.clock", "bot.table.presses",
           "bot.table.asks")
"""The table service's modules: their classes' methods are what a channel would call back."""
BELOW = ("bot.outbox", "bot.view")
"""The layers under the table service, the channels' delivery and drawing among them."""


def defined(names: Sequence[str]) -> set[str]:
    """The methods and functions the modules ``names`` define (a protocol's stub, whose body
    is ``...``, defines nothing: it names what another module's object does)."""
    return {f.name for n in names
            for f in ast.walk(ast.parse(modules()[n].read_text(encoding="utf-8")))
            if isinstance(f, Function) and not all(
                isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)
                for b in f.body)}


def service_calls(path: Path, service: set[str]) -> list[str]:
    """The calls in ``path`` of a method only the table service has (a name of
    ``service``): the call back into it of a channel that holds it under some protocol."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted(f"{path.name}:{n.lineno} {ast.unparse(n.func)}" for n in ast.walk(tree)
                  if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and n.func.attr in service)


def service_only() -> set[str]:
    """The table service's own method names: those no module below it defines too (``stop``
    or ``publish`` are also the courier's and the feed's), nor a lock, a dict or a list
    (``locked``, ``get``)."""
    below = [n for n in modules() if n.startswith(BELOW)]
    common = {*dir(asyncio.Lock), *dir(dict), *dir(list), *dir(set)}
    return {m for m in defined(SERVICE) - defined(below) - common if not m.startswith("_")}


@pytest.mark.parametrize("name", sorted(n for n in modules() if n.startswith(BELOW)))
def test_nothing_below_the_table_service_calls_it_back(name: str) -> None:
    # what a delivery teaches the table goes as a report (bot/outbox/reports.py), and the
    # table message is drawn from the feed's publication: no callback into the service
    assert service_calls(modules()[name], service_only()) == []


def test_a_call_back_into_the_service_is_found(tmp_path: Path) -> None:
    # the check above can fail: how the courier once drew the table message and started
    # a turn's clock
    module = tmp_path / "courier.py"
    module.write_text(
        "class Courier:\n"
        "    async def edit(self, chat_id: int) -> None:\n"
        "        render = await self.tables.current_render(chat_id)\n"
        "        await self.tables.turn_seen(chat_id, 3, [5])\n"
        "        self.feed.publish(chat_id, 3)\n", encoding="utf-8")
    assert {"current_render", "turn_seen", "group_lost", "commit"} - service_only() == {
        "current_render"}  # gone from the service since: a name of the past
    assert service_calls(module, service_only() | {"current_render"}) == [
        "courier.py:3 self.tables.current_render", "courier.py:4 self.tables.turn_seen"]


MOST_LINES = 500
"""A module of bot/ a newcomer can read whole: past this, it holds more than one thing and is
cut (README, "The code")."""


def test_no_module_of_bot_is_longer_than_a_newcomer_reads_whole() -> None:
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES}
    assert long == {}
