"""/stats and /top through the real bot and the sandbox: after three coups of chemin de fer,
what the commands answer is what the group's results showed, counted from their texts (and
the feats the game counted, as the bot recorded each coup)."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

from harness import DEFAULT, POLICIES, BotProcess, Game, Player
from test_e2e_games import open_and_seat

from bot.view import i18n, standings
from storage.base import PlayerStats, SettledCoup, Standing

PLAYERS = [Player(101, "Ann"), Player(102, "Bob"), Player(103, "Cid")]
ANN, BOB, CID = PLAYERS
NET = re.compile(r"(Ann|Bob|Cid)( \(banker\))? ([+−±])(\d+)")


def recorded_feats(bot: BotProcess) -> dict[int, Counter[str]]:
    """Each player's feats over the coups the bot recorded (``coups.record``, the settled
    coup as its step wrote it): what no result's text shows."""
    db = sqlite3.connect(f"file:{bot.data_dir / 'banco.sqlite3'}?mode=ro", uri=True, timeout=5)
    try:
        records = [SettledCoup.model_validate_json(r) for (r,) in db.execute(
            "SELECT record FROM coups ORDER BY coup_id")]
    finally:
        db.close()
    out: dict[int, Counter[str]] = {p.id: Counter() for p in PLAYERS}
    for coup in records:
        for player, feats in coup.feats.items():
            out[player].update(feats)
    return out


def figures(results: list[dict[str, Any]], feats: dict[int, Counter[str]]
            ) -> dict[str, PlayerStats]:
    """Each player's figures as the results' texts show them: the net line of each (its
    third line: "Cid +1 · Ann (banker) −1"), coup by coup; and his ``feats``."""
    coups: dict[str, list[tuple[int, bool]]] = {p.name: [] for p in PLAYERS}
    for m in results:
        for name, banker, sign, amount in NET.findall(m["text"].splitlines()[2]):
            coups[name].append((-int(amount) if sign == "−" else int(amount), bool(banker)))
    out = {}
    for p in PLAYERS:
        nets = [n for n, _ in coups[p.name]]
        runs = "".join("b" if b else "." for _, b in coups[p.name]).split(".")
        out[p.name] = PlayerStats(
            user_id=p.id, coups=len(nets), won=sum(n > 0 for n in nets),
            lost=sum(n < 0 for n in nets), net=sum(nets), best=max([0, *nets]),
            worst=min([0, *nets]), banks=sum(b for _, b in coups[p.name]),
            longest_bank=max(len(r) for r in runs), feats=dict(feats[p.id]))
    return out


async def answer(game: Game, player: Player, text: str, reply_to: int | None = None) -> str:
    """What the bot answers in the group to ``player``'s ``text`` (the next bot message)."""
    before = len(await game.sb.bot_messages(game.chat_id))
    await game.sb.send(game.chat_id, player.id, text, reply_to=reply_to)

    async def new() -> str | None:
        mine = await game.sb.bot_messages(game.chat_id)
        return str(mine[before]["text"]) if len(mine) > before else None

    return await game.sb.wait_for(new, timeout=20)


async def three_coups(sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path
                     ) -> tuple[Game, dict[str, PlayerStats]]:
    """A bot whose group -1001 played three coups of chemin de fer; each player's figures as
    their results showed them (:func:`figures`)."""
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data")
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, -1001, PLAYERS)
    await open_and_seat(game, "chemin_de_fer")
    policy = POLICIES.get("chemin_de_fer", {})
    for _ in range(3):
        await game.play_until_settled(policy, policy.get("", DEFAULT))
    results = await game.settlements()
    assert len(results) == 3
    return game, figures(results, recorded_feats(bot))


async def test_stats_and_top_answer_what_the_results_showed(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    game, shown = await three_coups(sandbox, bot_factory, tmp_path)
    sb, bot = game.sb, game.bot

    # the achievements each was told in private: what /stats lists, oldest first
    reached = await sb.wait_for(lambda: achievements_told(bot, sb), timeout=20)

    def stats(name: str) -> str:
        titles = reached[name]
        return i18n.plain(standings.stats_text("en", name, shown[name], game=None,
                                               everywhere=False)) + (
            f"\n🏅 Achievements: {len(titles)} — {', '.join(titles)}" if titles else "")

    assert await answer(game, ANN, "/stats") == stats("Ann")
    cid_says = await sb.send(game.chat_id, CID.id, "hello")
    assert await answer(game, ANN, "/stats", reply_to=cid_says["message_id"]) == stats("Cid")
    assert await answer(game, BOB, "/stats@banco_bot @bob chemin de fer") == stats(
        "Bob").replace("all games", "Chemin de fer")
    ranked = sorted((Standing(user_id=f.user_id, name=name, coups=f.coups, won=f.won,
                              net=f.net) for name, f in shown.items()
                     if f.coups >= standings.MIN_COUPS),
                    key=lambda s: (-s.net, -s.coups, s.user_id))
    assert await answer(game, CID, "/top") == i18n.plain(
        standings.top_text("en", ranked, period="all", game=None))
    # in his private chat: his figures over all his chats
    await sb.send(CID.id, CID.id, "/stats")
    assert await sb.wait_for(lambda: private_answer(sb, CID)) == stats("Cid").replace(
        "this chat", "all chats")
    assert "Traceback" not in bot.log_text()


async def achievements_told(bot: BotProcess, sb: Any) -> dict[str, list[str]] | None:
    """The titles of the achievements each player was told of in private ("🏅 New
    achievement in «…»: Banco! — …"), once as many as the bot recorded were delivered."""
    db = sqlite3.connect(f"file:{bot.data_dir / 'banco.sqlite3'}?mode=ro", uri=True, timeout=5)
    try:
        recorded = db.execute("SELECT count(*) FROM achievements").fetchone()[0]
    finally:
        db.close()
    out = {p.name: [str(m["text"]).split(": ", 1)[1].split(" — ")[0]
                    for m in await sb.bot_messages(p.id)
                    if " New achievement in " in m["text"]] for p in PLAYERS}
    return out if sum(map(len, out.values())) == recorded else None


async def private_answer(sb: Any, player: Player) -> str | None:
    """The bot's newest message in ``player``'s private chat, if it is a /stats answer."""
    last = await sb.last_bot_message(player.id)
    return str(last["text"]) if last is not None and last["text"].startswith("📊") else None
