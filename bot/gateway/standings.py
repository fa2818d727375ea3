"""/stats and /top: a player's figures and a chat's standings, read from what the tables
recorded of every settled coup (:meth:`storage.base.Storage.player_stats`,
:meth:`~storage.base.Storage.standings`) and worded by :mod:`bot.view.standings`. Their
arguments are parsed here, untrusted: a game as players call it (as /rules takes it), a
period, a player named with ``@``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from telegram import Message, MessageEntity, Update, User

from bot.gateway.commands import args, chat_lang, profile_markup
from bot.gateway.context import Context, clean, is_group, reply, say, services
from bot.gateway.ratings import RATING, with_rating
from bot.gateway.ratings import top_text as rating_top
from bot.table import seasons as rollover
from bot.view import achievements, i18n, seasons, standings
from bot.view.rulebook import game_of
from storage.base import Storage

CHIPS = "chips"
"""/top chips: the chat's richest players (wallet and table chips), not its standings."""
SEASON = "season"
"""/top season [game]: the chat's current season so far (as /season shows it)."""


@dataclass(frozen=True)
class StatsAsk:
    """What a /stats asks for: a game (None: every game) and a player named with ``@``
    (None: the sender, or the player whose message it answers)."""

    game: str | None = None
    name: str | None = None


def stats_args(words: Sequence[str]) -> StatsAsk | None:
    """/stats [game] [@name], the game before or after the name (``@Ann Smith chemin de
    fer``: the name runs up to the words that name a game); None when the words other than
    the name name no game."""
    at = next((i for i, w in enumerate(words) if w.startswith("@")), len(words))
    game_words, name_words = list(words[:at]), list(words[at:])
    if name_words and not game_words:
        cut = next((k for k in range(1, len(name_words))
                    if game_of(" ".join(name_words[k:])) is not None), len(name_words))
        name_words, game_words = name_words[:cut], name_words[cut:]
    game = game_of(" ".join(game_words)) if game_words else None
    if game_words and game is None:
        return None
    return StatsAsk(game, " ".join(name_words)[1:] or None)


def top_args(words: Sequence[str]) -> tuple[str, str | None] | None:
    """/top [today|week|month|season|all] [game], the period first or last (all by default), or
    /top chips, or /top rating: the period (or :data:`CHIPS`, or
    :data:`~bot.gateway.ratings.RATING`) and the game (None: every game); None when the
    other words name no game (or name one after ``chips`` or ``rating``)."""
    rest = [w.lower() for w in words]
    period = "all"
    for edge in (0, -1):
        if rest and rest[edge] in (*standings.PERIODS, SEASON, CHIPS, RATING):
            period = rest.pop(edge)
            break
    game = game_of(" ".join(rest)) if rest else None
    if (rest and game is None) or (period in (CHIPS, RATING) and game is not None):
        return None
    return period, game


def replied_to(msg: Message | None) -> User | None:
    """The person whose message a command answers: none for a bot's message, nor for a
    forum topic's first message (every message of a topic answers it)."""
    answered = msg.reply_to_message if msg is not None else None
    if answered is None or answered.from_user is None or answered.from_user.is_bot:
        return None
    if msg is not None and msg.is_topic_message and answered.message_id == msg.message_thread_id:
        return None
    return answered.from_user


def mentioned(msg: Message | None) -> tuple[User, list[str]] | None:
    """A member a command names by a text mention (one without a username, picked from
    Telegram's list: the mention carries him), and the command's arguments without him."""
    if msg is None or msg.text is None:
        return None
    for entity in msg.entities:
        if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None:
            text = msg.text.replace(msg.parse_entity(entity), " ", 1)
            return entity.user, [clean(w) for w in text.split()[1:]]
    return None


async def whose(context: Context, chat_id: int, sender: User, msg: Message | None,
                name: str | None) -> tuple[int, str] | None:
    """Whose figures a /stats in a group asks for, with his name: the one named with ``@``
    (the chat's player whose name that is, whatever its case: Telegram tells a bot nobody's
    id by a username), else the one whose message ``msg`` answers, else the ``sender``.
    None: no player of the chat has that name."""
    if name is not None:
        wallets = await services(context).storage.leaderboard(chat_id=chat_id, limit=1 << 31)
        found = next((w for w in wallets if w.name.casefold() == name.casefold()), None)
        return (found.user_id, found.name) if found is not None else None
    other = replied_to(msg) or sender
    return other.id, clean(other.full_name)


async def cmd_stats(update: Update, context: Context) -> None:
    """/stats [game] [@name]: the sender's figures, or another player's (as a reply to his
    message, by a mention, or with ``@name``): in a group, in that chat; in a private chat,
    the sender's in all his chats."""
    chat, user, msg = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None:
        return
    lang = await chat_lang(update, context)
    named = mentioned(msg)
    ask = stats_args(named[1] if named is not None else args(context))
    if ask is None:
        await say(update, context, i18n.t(lang, "stats_usage"))
        return
    storage = services(context).storage
    if not is_group(update):
        mine = await storage.player_stats(user_id=user.id, game=ask.game)
        await reply(update, await with_titles(context, lang, user.id, await with_rating(
            storage, lang, standings.stats_text(lang, clean(user.full_name), mine,
                                                game=ask.game, everywhere=True),
            user_id=user.id, chat_id=None, game=ask.game), game=ask.game),
            reply_markup=profile_markup(context, lang))
        return
    target = ((named[0].id, clean(named[0].full_name)) if named is not None
              else await whose(context, chat.id, user, msg, ask.name))
    if target is None:
        await say(update, context, i18n.t(lang, "stats_unknown", name=f"@{ask.name}"))
        return
    stats = await storage.player_stats(user_id=target[0], chat_id=chat.id, game=ask.game)
    await say(update, context, await with_titles(context, lang, target[0], await with_rating(
        storage, lang, standings.stats_text(lang, target[1], stats, game=ask.game,
                                            everywhere=False),
        user_id=target[0], chat_id=chat.id, game=ask.game), chat.id, ask.game))


async def with_titles(context: Context, lang: str, user_id: int, text: str,
                      chat_id: int | None = None, game: str | None = None) -> str:
    """A /stats ``text`` with, below it, the achievements the player reached in ``chat_id``
    (None: in all his chats) in ``game`` (None: in any), and the titles he took in every
    chat's seasons."""
    storage = services(context).storage
    earned = [e for e in await storage.achievements(user_id=user_id, chat_id=chat_id)
              if game is None or e.game == game]
    reached = achievements.stats_line(lang, earned)
    titles = await storage.player_titles(user_id=user_id)
    return "\n".join([text, *([reached] if reached else []),
                      *seasons.titles_lines(lang, titles)])


async def cmd_season(update: Update, context: Context) -> None:
    """/season: the chat's current season (its days in UTC) and its standings so far;
    /season N: the post of its Nth season, again."""
    chat = update.effective_chat
    if chat is None:
        return
    lang = await chat_lang(update, context)
    if not is_group(update):
        await say(update, context, i18n.t(lang, "group_only"))
        return
    given = args(context)
    if len(given) > 1 or (given and not given[0].isdigit()):
        await say(update, context, i18n.t(lang, "season_usage"))
        return
    await say(update, context, await season_text(services(context).storage, lang, chat.id,
                                                 int(given[0]) if given else None,
                                                 dt.datetime.now(dt.UTC).date()))


async def season_text(storage: Storage, lang: str, chat_id: int, number: int | None,
                      today: dt.date, game: str | None = None) -> str:
    """What /season [N] answers on ``today``: the ``number``th season's post, or without
    one the current season's standings (none when the chat has seasons off), in ``game``
    alone if one is given (/top season [game])."""
    if number is not None:
        past = await storage.seasons(chat_id=chat_id)
        if not 1 <= number <= len(past):
            return str(i18n.t(lang, "season_unknown", number=number, count=len(past)))
        return seasons.post_text(lang, past[number - 1])
    kind = rollover.kind_of(await storage.chat_settings(chat_id=chat_id))
    if kind == rollover.OFF:
        return str(i18n.t(lang, "season_off"))
    first, last = rollover.season_days(kind, today)
    rows = await storage.standings(chat_id=chat_id, game=game, since=first, until=last,
                                   min_coups=standings.MIN_COUPS, limit=10)
    return seasons.current_text(lang, kind, first, last, rows, game=game)


async def cmd_top(update: Update, context: Context) -> None:
    """/top [today|week|month|season|all] [game]: the chat's standings by net chips won in
    play over the period (all time by default; days in UTC; the season: the chat's current
    one, as /season shows it), among players with :data:`~bot.view.standings.MIN_COUPS`
    coups in it; /top chips: its richest players; /top rating: its poker rating."""
    chat = update.effective_chat
    if chat is None:
        return
    lang = await chat_lang(update, context)
    if not is_group(update):
        await say(update, context, i18n.t(lang, "group_only"))
        return
    asked = top_args(args(context))
    if asked is None:
        await say(update, context, i18n.t(lang, "top_usage"))
        return
    period, game = asked
    storage = services(context).storage
    if period == CHIPS:
        rich = await storage.leaderboard(chat_id=chat.id, limit=10)
        await say(update, context, standings.richest_text(lang, rich))
        return
    if period == RATING:
        await say(update, context, await rating_top(storage, lang, chat.id))
        return
    if period == SEASON:
        await say(update, context, await season_text(
            storage, lang, chat.id, None, dt.datetime.now(dt.UTC).date(), game=game))
        return
    since, until = standings.period_days(period, dt.datetime.now(dt.UTC).date())
    rows = await storage.standings(chat_id=chat.id, game=game, since=since, until=until,
                                   min_coups=standings.MIN_COUPS, limit=10)
    await say(update, context, standings.top_text(lang, rows, period=period, game=game))
