"""The poker rating in words (:class:`storage.base.Rating`): a player's line under his /stats
and a chat's /top rating, in the reader's language. A rating is shown as its ordinal
(``mu - 3 * sigma``, what ranks it) to one decimal, with the hands rated."""

from __future__ import annotations

from collections.abc import Sequence

from bot.view import i18n
from storage.base import Rating

MIN_HANDS = 5
"""The rated hands that rank a player in /top rating (it says so)."""


def ordinal(lang: str, rating: Rating) -> str:
    """His ordinal to one decimal, as the language writes a decimal: "12.3", "12,3"; never
    "-0.0"."""
    text = f"{rating.ordinal:.1f}"
    text = "0.0" if text == "-0.0" else text
    return text.replace(".", ",") if lang == "ru" else text


def hands(lang: str, n: int) -> str:
    """Hands rated, counted: "1 hand", "5 раздач"."""
    return i18n.count(lang, n, "rated_hand")


def stats_line(lang: str, rating: Rating, chat: str | None = None) -> str:
    """/stats: his rating in this chat, or (in his private chat) in ``chat``, his best."""
    fields = {"ordinal": ordinal(lang, rating), "hands": hands(lang, rating.hands)}
    if chat is None:
        return str(i18n.t(lang, "rating_stats", **fields))
    return str(i18n.t(lang, "rating_stats_in", chat=chat, **fields))


def top_text(lang: str, ratings: Sequence[Rating], min_hands: int = MIN_HANDS) -> str:
    """/top rating: the chat's players by their rating, best first, each with his hands
    rated; and how many hands rank a player."""
    lines = [str(i18n.t(lang, "rating_title"))]
    lines += [str(i18n.t(lang, "rating_line", rank=rank, name=r.name, ordinal=ordinal(lang, r),
                         hands=hands(lang, r.hands)))
              for rank, r in enumerate(ratings, 1)] or [str(i18n.t(lang, "top_nobody"))]
    lines.append(str(i18n.t(lang, "rating_min", hands=hands(lang, min_hands))))
    return "\n".join(lines)
