"""The poker rating on /stats and /top rating: read from the chat's ratings
(:meth:`storage.base.Storage.rating`, :meth:`~storage.base.Storage.ratings`) and worded by
:mod:`bot.view.ratings`."""

from __future__ import annotations

from bot.view import ratings, wallets
from games import registry
from storage.base import Rating, Storage

RATING = "rating"
"""/top rating: the chat's poker rating, not its standings."""


async def with_rating(storage: Storage, lang: str, text: str, *, user_id: int,
                      chat_id: int | None, game: str | None) -> str:
    """A /stats ``text`` with the player's poker rating below it, where he has rated hands
    and the /stats is of a rated game or of all: in ``chat_id``, or (None: his private
    chat) in his best chat, named."""
    if game is not None and not registry.rated(game):
        return text
    if chat_id is not None:
        found = await storage.rating(user_id=user_id, chat_id=chat_id)
        return text if found is None else "\n".join((text, ratings.stats_line(lang, found)))
    best: tuple[Rating, str] | None = None
    for chat in await storage.wallets_of(user_id=user_id):
        found = await storage.rating(user_id=user_id, chat_id=chat.wallet.chat_id)
        if found is not None and (best is None or found.ordinal > best[0].ordinal):
            best = found, wallets.chat_name(lang, chat)
    return text if best is None else "\n".join((text, ratings.stats_line(lang, *best)))


async def top_text(storage: Storage, lang: str, chat_id: int) -> str:
    """/top rating: the chat's players by poker rating, from
    :data:`~bot.view.ratings.MIN_HANDS` rated hands."""
    found = await storage.ratings(chat_id=chat_id, min_hands=ratings.MIN_HANDS, limit=10)
    return ratings.top_text(lang, found)
