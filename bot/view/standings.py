"""/stats and /top in words: a player's figures (:class:`storage.base.PlayerStats`), a chat's
standings by net chips won in play (:class:`storage.base.Standing`) and its richest players
(/top chips), in the reader's language. What a game counts beyond a player's net (his
feats) is labelled by the game's own texts (:attr:`games.engine.GameTexts.feats`): the host
knows no feat by name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from bot.view import i18n
from games import registry
from games.engine import Hand
from storage.base import PlayerStats, Standing, Wallet

MIN_COUPS = 3
"""The coups a player must have played in a period to be ranked in it (/top says so)."""

PERIODS = ("today", "week", "month", "all")
"""What /top ranks over: today, the last 7 days, the last 30 days, every day."""

_DAYS = {"today": 1, "week": 7, "month": 30}


def period_days(period: str, today: dt.date) -> tuple[dt.date | None, dt.date | None]:
    """The first and the last day (UTC) of a /top period of :data:`PERIODS`, both
    included: today alone, the last 7 or 30 days with today, or (None, None) for all."""
    if period not in _DAYS:
        return None, None
    return today - dt.timedelta(days=_DAYS[period] - 1), today


def signed(n: int) -> str:
    """A net as the standings show it: "+40", "-100", "0"."""
    return f"+{n}" if n > 0 else str(n)


def games_label(lang: str, game: str | None) -> str:
    """The game asked for by its name, or "all games"."""
    return i18n.game_name(lang, game) if game else str(i18n.t(lang, "stats_all_games"))


def feat_label(lang: str, feat: str, labels: Mapping[str, Mapping[str, str]]) -> str:
    """A feat as ``labels`` (a game's :attr:`~games.engine.GameTexts.feats`) word it in
    ``lang``, else in English, else its own name made readable ("banco won"): a feat no
    text labels is still counted and shown, never dropped."""
    found = labels.get(lang, {}).get(feat) or labels.get("en", {}).get(feat)
    return found or feat.replace("_", " ").capitalize()


def feat_lines(lang: str, feats: Mapping[str, int], game: str | None) -> list[str]:
    """One line per feat counted, labelled by ``game``'s texts (every game's, without one),
    in the order its texts declare them, then any they do not label by name."""
    labels = registry.texts_of(game).feats if game else i18n.games_texts().feats
    order = [*labels.get(lang, {}), *labels.get("en", {})]
    ranked = sorted(feats, key=lambda f: (order.index(f) if f in order else len(order), f))
    return [str(i18n.t(lang, "stats_feat", label=feat_label(lang, f, labels), n=feats[f]))
            for f in ranked]


def stats_text(lang: str, name: str, stats: PlayerStats, *, game: str | None,
               everywhere: bool) -> str:
    """/stats: ``name``'s figures in one game (``game``) or all, in one chat or in all his
    chats (``everywhere``): coups played, won and lost, his net, his biggest win and loss,
    the banks he held and his longest run of them (when he held one), each feat his games
    counted, and the best poker hand he showed."""
    title = i18n.t(lang, "stats_title", name=name, game=games_label(lang, game),
                   scope=i18n.t(lang, "stats_all_chats" if everywhere else "stats_this_chat"))
    if not stats.coups:
        return "\n".join((title, i18n.t(lang, "stats_none")))
    lines: list[str] = [
        title, i18n.t(lang, "stats_played", coups=i18n.count(lang, stats.coups, "coup"),
                      won=stats.won, lost=stats.lost),
        i18n.t(lang, "stats_net", net=signed(stats.net)),
        i18n.t(lang, "stats_extremes", best=signed(stats.best), worst=signed(stats.worst))]
    if stats.banks:
        lines.append(i18n.t(lang, "stats_banks", banks=stats.banks, run=stats.longest_bank))
    lines += feat_lines(lang, stats.feats, game)
    if stats.best_hand is not None:
        lines.append(i18n.t(lang, "stats_best_hand", hand=i18n.hand_text(
            lang, Hand.model_validate(stats.best_hand))))
    return "\n".join(lines)


def top_text(lang: str, standings: Sequence[Standing], *, period: str, game: str | None,
             min_coups: int = MIN_COUPS) -> str:
    """/top: the chat's standings over ``period`` (one of :data:`PERIODS`) in one game or
    all, by net chips won in play, each with his coups and wins; and how many coups rank a
    player."""
    lines = [i18n.t(lang, "top_title", period=i18n.t(lang, f"top_{period}"),
                    game=games_label(lang, game))]
    lines += [i18n.t(lang, "top_line", rank=rank, name=s.name, net=signed(s.net),
                     coups=i18n.count(lang, s.coups, "coup"), won=s.won)
              for rank, s in enumerate(standings, 1)] or [i18n.t(lang, "top_nobody")]
    lines.append(i18n.t(lang, "top_min", coups=i18n.count(lang, min_coups, "coup")))
    return "\n".join(lines)


def richest_text(lang: str, wallets: Sequence[Wallet]) -> str:
    """/top chips: the chat's richest players, their wallet and table chips together."""
    if not wallets:
        return str(i18n.t(lang, "rich_empty"))
    return "\n".join([i18n.t(lang, "rich_title"), *(
        i18n.t(lang, "rich_line", rank=rank, name=w.name or str(w.user_id),
               total=w.balance + w.on_table) for rank, w in enumerate(wallets, 1))])
