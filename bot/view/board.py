"""The all-chats board and /privacy in words: players ranked over every listed chat
(:class:`storage.base.BoardStanding`), each named only if he chose to be, else masked as his
name's first letter and ``•••`` (never his id nor his username); and the /privacy picker.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.view import i18n
from bot.view.codec import PrivacyButton, encode_privacy
from bot.view.keyboards import Button, Keyboard
from bot.view.standings import MIN_COUPS, games_label, signed
from storage.base import BoardStanding

WORD = "global"
"""/top global: the all-chats board."""
MASK = "•••"
"""What stands for the rest of a hidden name."""


def masked(name: str) -> str:
    """A hidden player's name on the board: its first letter and :data:`MASK` (``A•••``);
    :data:`MASK` alone for a player without a name."""
    first = name.strip()[:1]
    return f"{first.upper()}{MASK}" if first else MASK


def shown_name(line: BoardStanding) -> str:
    """How the board names a player: by his name if he made it public (:data:`MASK` if he
    has none), else :func:`masked`."""
    return (line.name or MASK) if line.public else masked(line.name)


def board_text(lang: str, lines: Sequence[BoardStanding], *, period: str, game: str | None,
               min_coups: int = MIN_COUPS) -> str:
    """/top global: the board over ``period`` (one of
    :data:`bot.view.standings.PERIODS`) in one game or all, as /top words a chat's
    standings; how many coups rank a player, and how chats and names get there."""
    out = [i18n.t(lang, "board_title", period=i18n.t(lang, f"board_{period}"),
                  game=games_label(lang, game))]
    out += [i18n.t(lang, "top_line", rank=rank, name=shown_name(s), net=signed(s.net),
                   coups=i18n.count(lang, s.coups, "coup"), won=s.won)
            for rank, s in enumerate(lines, 1)] or [i18n.t(lang, "top_nobody")]
    out += [i18n.t(lang, "top_min", coups=i18n.count(lang, min_coups, "coup")),
            i18n.t(lang, "board_how")]
    return "\n".join(out)


def privacy_text(lang: str, name: str, public: bool) -> str:
    """/privacy: whether the player's name shows on the board, and as what."""
    if public:
        return str(i18n.t(lang, "privacy_public", name=name or MASK))
    return str(i18n.t(lang, "privacy_hidden", masked=masked(name)))


def privacy_keyboard(lang: str, user_id: int) -> Keyboard:
    """/privacy's two buttons, for ``user_id`` alone: show my name, hide my name."""
    return Keyboard.of([[
        Button(str(i18n.t(lang, "privacy_show")), encode_privacy(PrivacyButton(user_id, True))),
        Button(str(i18n.t(lang, "privacy_hide")), encode_privacy(PrivacyButton(user_id, False))),
    ]])
