"""A player's chips in his private chat: /balance (his wallet in each chat he plays in)
and /history (his latest results, net per coup).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.view import i18n
from storage.base import ChatWallet, LedgerEntry


def balances_text(lang: str, name: str, wallets: Sequence[ChatWallet]) -> str:
    """/balance in a private chat: the player's wallet in each chat he plays in, named by
    the chat's title, or, where none was seen, by its open table's game (chips are per
    chat: none of them plays anywhere else)."""
    if not wallets:
        return i18n.t(lang, "balance_nowhere", name=name)
    lines = [i18n.t(lang, "balance_chats", name=name)]
    for w in wallets:
        lines.append(i18n.t(lang, "balance_chat", chat=chat_name(lang, w),
                            balance=w.wallet.balance, on_table=w.wallet.on_table))
    return "\n".join(lines)


def chat_name(lang: str, w: ChatWallet) -> str:
    """What names a chat to a player in his private chat: its title, or, where none was
    seen, its open table's game."""
    return w.title or (i18n.t(lang, "chat_untitled_game", game=i18n.game_name(lang, w.game))
                       if w.game else i18n.t(lang, "chat_untitled"))


def histories_text(lang: str, name: str,
                   results: Sequence[tuple[ChatWallet, Sequence[str]]]) -> str:
    """/history in a private chat: the player's latest results in each chat he plays in
    (:func:`history_lines` of each), under the chat's name; chats without any are left out."""
    results = [(w, lines) for w, lines in results if lines]
    if not results:
        return i18n.t(lang, "history_nowhere", name=name)
    out = [str(i18n.t(lang, "history_chats", name=name))]
    for w, lines in results:
        out.append(str(i18n.t(lang, "history_chat", chat=chat_name(lang, w))))
        out.extend(lines)
    return "\n".join(out)


def history_lines(lang: str, entries: Sequence[LedgerEntry], limit: int = 10) -> list[str]:
    """A player's latest results, newest first: his net per coup, and grants and bonuses.

    **Decision** (what a player expects): a coup's line is what he won or lost in it, the
    figure its result showed him, as punter or as banker. Moves between his own wallet,
    stack and stake cancel out; so do a bank's posting and its return, because the ledger
    books a bank to its banker while it is his (:func:`games.banking.bank_holders`): the
    bank's wins and losses are his. Chips are booked under the coup they are for (a bank
    posted or antes paid for a coup about to begin are that coup's, never a coup #0; a
    step that settles one coup and deals the next splits, see
    :func:`bot.table.plan.booked_coups`), so no line merges two coups' movements."""
    groups: list[tuple[str, int, str, int]] = []  # game, coup, reason, net
    for e in entries:
        key = (e.game, e.coup, "" if e.game else e.reason)
        if groups and groups[-1][:3] == key:
            groups[-1] = (*key, groups[-1][3] + e.delta)
        else:
            groups.append((*key, e.delta))
    lines: list[str] = []
    for game, coup, reason, net in groups:
        if net == 0:
            continue
        amount = f"+{net}" if net > 0 else str(net)
        if game:
            lines.append(i18n.t(lang, "history_coup", game=i18n.game_name(lang, game),
                                deal=i18n.deal(lang, game, coup), amount=amount))
        else:
            lines.append(i18n.t(lang, "history_other", what=i18n.word(lang, reason),
                                amount=amount))
        if len(lines) == limit:
            break
    return lines
