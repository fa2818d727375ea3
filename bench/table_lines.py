"""How long the group's texts are: table message and settlement lines per game (not a test).

Plays each game in-process through the host's commit path (real SQLite, no Telegram):
four players take random legal actions for a few coups; after every step the table
message is drawn as the courier would send it. Prints, per game, the most lines the
table message had outside its collapsed log, and the longest settlement (lines and
characters). Run it on two checkouts to compare before and after.

    python bench/table_lines.py [--coups 6] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot import compose
from bot.outbox.kinds import SETTLE
from games import registry
from games.engine import Join
from storage.sqlite import SqliteStorage

CHAT = -1
PLAYERS = (1, 2, 3, 4)
SETTINGS: dict[str, dict[str, Any]] = {"banchok": {"bank": 100}}
# what players mostly press, first available first (else a random legal action)
LIKED = ["start", "cut", "post_bank", "stake", "bid", "name_bank", "stand", "check", "call",
         "draw", "continue", "accept", "buy", "turn"]
QUOTE = re.compile(r"<blockquote[^>]*>.*?</blockquote>", re.S)


def outside_log(text: str) -> int:
    """Lines of a message outside its (expandable) blockquote."""
    return len([x for x in QUOTE.sub("", text).split("\n") if x.strip()])


def pick(engine: Any, state: Any, player: int, rng: random.Random) -> Any:
    """A random legal action of ``player`` (leaving aside), or None."""
    specs = [s for s in engine.legal_actions(state, player) if s.kind not in ("join", "leave")]
    if not specs:
        return None
    liked = [s for kind in LIKED for s in specs if s.kind == kind]
    spec = liked[0] if liked and rng.random() < 0.7 else rng.choice(specs)
    fields = engine.action_types[spec.kind].model_fields
    data: dict[str, Any] = {"kind": spec.kind}
    for name in fields:
        if name in ("amount", "stake", "offset", "depth") and spec.min is not None:
            data[name] = rng.choice(spec.presets) if spec.presets else spec.min
    if "cards" in fields:
        data["cards"] = tuple(rng.sample(spec.choices, min(1, spec.max or 0)))
    return engine.action_types[spec.kind].model_validate(data)


async def play(game: str, coups: int, seed: int, lang: str) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        storage = SqliteStorage(Path(tmp) / "b.sqlite3", starting_grant=1000, daily_bonus=0)
        await storage.open()
        service = compose.service(storage, language=lang, bot_username="banco_bot")
        tables, lifecycle = service.tables, service.lifecycle
        await lifecycle.open_table(CHAT, game, PLAYERS[0], lang, SETTINGS.get(game))
        engine = registry.engine(game)
        for p in PLAYERS:
            table = await tables.load(CHAT)
            await tables.commit(table, engine.apply(table.state, p,
                                                    Join(name=f"Player{p}", buy_in=1000)))
        most, settle_lines, settle_chars, steps = 0, 0, 0, 0
        while steps < 3000:
            table = await tables.load(CHAT)
            if table.state.coup > coups:
                break
            published = tables.feed.latest(CHAT)  # the table message, as published
            render = published.screen() if published is not None else None
            assert render is not None
            most = max(most, outside_log(render.text))
            order = list(engine.awaiting(table.state)) or list(PLAYERS)
            found = [(p, a) for p in order if (a := pick(engine, table.state, p, rng))]
            if not found:
                break
            player, action = found[0]
            try:
                step = engine.apply(table.state, player, action)
            except Exception:
                continue
            await tables.commit(table, step)
            steps += 1
        for item in await storage.pending_outbox(chat_id=CHAT, limit=10000):
            if item.kind == SETTLE:
                text = str(item.payload["text"])
                settle_lines = max(settle_lines, outside_log(text))
                settle_chars = max(settle_chars, len(QUOTE.sub("", text)))
        service.deadlines.stop()
        await storage.close()
        return {"game": game, "table_lines_max": most, "settlement_lines_max": settle_lines,
                "settlement_chars_max": settle_chars, "steps": steps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coups", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
    for game in registry.GAMES:
        print(json.dumps(asyncio.run(play(game, args.coups, args.seed, args.lang))))


if __name__ == "__main__":
    main()
