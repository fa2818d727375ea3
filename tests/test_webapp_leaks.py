"""Deny by default, on every game: two coups of each of the six games played through the
Mini App alone (three players' pages and a member watching, on the real host in-process),
and every WebSocket frame and every action's answer scanned for a card another seat held
hidden at that moment, with the engine's own state as the oracle. Chips are conserved."""

from __future__ import annotations

import json
import random
import sqlite3
from typing import Any

import aiohttp
import pytest
from test_bot_tables import ANN, BOB, CHAT, CID, RecordingBot, make_host  # noqa: F401
from test_webapp_server import (
    EVE,
    TOKEN,
    Page,
    current,
    init_data,
    link,
    open_page,
    post,
    record_hidden,
)

from bot import compose
from bot.gateway.webapp.auth import Members
from games import cards

GAMES = ("chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker")
PLAYERS = (ANN, BOB, CID)


async def member(chat_id: int, user_id: int) -> tuple[str, bool]:
    return ("member", True) if user_id in (*PLAYERS, EVE) else ("left", False)


def leaks(frame: dict[str, Any], viewer: int, hidden: dict[tuple[int, int], tuple[str, ...]]
          ) -> list[str]:
    """Cards in ``frame`` that another seat held hidden at the frame's version and that the
    frame does not show face up."""
    if frame.get("type") != "snapshot":
        return []
    shown = {c for s in frame["table"]["seats"] for c in s["face_up"]}
    text = json.dumps(frame)
    found = []
    for (player, version), held in hidden.items():
        if player == viewer or version != frame["version"]:
            continue
        found += [c for c in held if c not in shown and f'"{c}"' in text]
    return found


def page_moves(snap: dict[str, Any]) -> list[dict[str, Any]]:
    """The actions of a snapshot a test's player takes from his page: never a utility
    (leave, join) nor, while he has another, a decline or retire (declining a bank, or
    retiring, stands a banchok player up: the table would empty). By kind: a seeded pick
    among them is the seed's, whatever order the page shows them in."""
    offered = sorted((a for a in snap["actions"] if a["input"] != "utility"),
                     key=lambda a: str(a["kind"]))
    staying = [a for a in offered if a["kind"] not in ("decline", "retire")]
    return staying or offered


def move(snap: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A move a player would make from his page: one of his :func:`page_moves`, an amount
    from its presets, the first choice, his first cards to pick."""
    offered = page_moves(snap)
    if not offered:
        return None
    act = rng.choice(offered)
    body: dict[str, Any] = {"kind": act["kind"], "coup": snap["table"]["coup"],
                            "decision": snap["decision"]}
    if act["input"] == "amount":
        body["amount"] = rng.choice(act["presets"])
    if act["choices"] and act["input"] in ("choice", "amount"):
        body["choice"] = 0
    if act["input"] == "own_cards":
        body["cards"] = 0
    return body


@pytest.mark.parametrize("game", GAMES)
async def test_two_coups_through_the_app_leak_nothing(
        game: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    seeded = random.Random(f"app {game}")
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    rng = random.Random(game)
    bot = RecordingBot()
    host = await make_host(bot)
    record_hidden(host)
    web = compose.webapp(host, token=TOKEN, members=Members(member), sdk_url="/sdk.js",
                         max_age=3600)
    await web.start("127.0.0.1", 0)
    url = f"http://127.0.0.1:{web.port}/app/"
    try:
        assert await host.lifecycle.open_table(CHAT, game, ANN, "en") is None
        async with aiohttp.ClientSession() as session:
            pages: dict[int, Page] = {p: await open_page(session, url, init_data(p, param=link()))
                                      for p in (*PLAYERS, EVE)}
            answers: list[tuple[int, dict[str, Any]]] = []
            for player in PLAYERS:  # everyone sits down from his page
                snap = await current(session, url, player)
                join = next(a for a in snap["actions"] if a["kind"] == "join")
                code, answer = await post(session, url, init_data(player, param=link()), {
                    "kind": "join", "coup": snap["table"]["coup"],
                    "decision": snap["decision"], "key": f"join-{player}-{game}"})
                assert answer["ok"], (join, answer)
                answers.append((player, answer))
            settled: set[int] = set()
            for n in range(400):
                snap = await current(session, url, ANN)
                result = snap["table"]["result"]
                if result is not None:
                    settled.add(result["coup"])
                    assert sum(x["net"] for x in result["nets"]) == 0  # chips conserved
                if len(settled) >= 2:
                    break
                awaited = snap["table"]["awaiting"]
                body = None
                for who in awaited or [PLAYERS[(n + i) % 3] for i in range(3)]:
                    mine = await current(session, url, who)
                    body = move(mine, rng)
                    if body is not None:
                        break
                assert body is not None, json.dumps(snap["table"], ensure_ascii=False)[:3000]
                body["key"] = f"move-{game}-{n}-{who}"
                code, answer = await post(session, url, init_data(who, param=link()), body)
                assert code == 200
                answers.append((who, answer))
            assert len(settled) >= 2, f"{game}: only {sorted(settled)} settled"
            await host.idle()
            # every chip is somewhere: the wallets and the table's accounts hold what was granted
            db = sqlite3.connect(host.storage.path)
            try:
                held = db.execute("SELECT SUM(balance) FROM wallets").fetchone()[0] + \
                    db.execute("SELECT SUM(balance) FROM table_accounts").fetchone()[0]
            finally:
                db.close()
            assert held == 3000
            for page in pages.values():
                while not page.ws.closed:
                    try:
                        await page.next(timeout=0.2)
                    except TimeoutError:
                        break
            assert sum(len(c) for c in host.hidden.values()) > 0
            frames = sum(len(p.frames) for p in pages.values())
            assert frames > 20
            for viewer, page in pages.items():
                for frame in page.frames:
                    assert leaks(frame, viewer, host.hidden) == [], (viewer, frame)
            for viewer, answer in answers:
                assert leaks(answer["snapshot"], viewer, host.hidden) == []
    finally:
        await web.stop()
