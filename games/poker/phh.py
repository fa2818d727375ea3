"""Hand histories in PHH (the Poker Hand History format pokerkit reads and writes).

Every finished hand is kept in the state as a :class:`FinishedHand`, whose
``kit.log`` already is the PHH action list pokerkit replayed. The PHH
standard has no code for five-card draw or five-card stud, so we name them
``F5CD``/``P5CD`` (fixed/pot-limit jackpots draw) and ``F5CS``/``P5CS``; a
jackpot's passed deals are not in the history (only the deal played out,
whose antes carry every ante of the hand) and are counted in
``_passed_deals``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pokerkit import HandHistory

from games.poker.common import FinishedHand
from games.poker.kit import KitHand

_FIELDS = ("variant", "antes", "small_bet", "big_bet", "starting_stacks", "actions")


class BancoHandHistory(HandHistory):
    """pokerkit's ``HandHistory`` that also knows our four variant codes."""

    required_field_names: ClassVar[dict[str, tuple[str, ...]]] = {
        **HandHistory.required_field_names,
        "F5CD": _FIELDS, "P5CD": _FIELDS, "F5CS": _FIELDS, "P5CS": _FIELDS,
    }


def variant_code(kit: KitHand) -> str:
    """Our PHH variant code for the game and betting structure of ``kit``."""
    return ("F" if kit.structure == "fixed" else "P") + (
        "5CD" if kit.variant == "draw" else "5CS")


def hand_history(hand: FinishedHand) -> BancoHandHistory:
    """The pokerkit ``HandHistory`` of a finished hand."""
    kit = hand.kit
    extra: dict[str, Any] = {"_passed_deals": hand.passed_deals, "_player_ids": kit.players}
    if kit.opener is not None:
        extra["_opener"] = f"p{kit.opener + 1}"
    return BancoHandHistory(
        variant=variant_code(kit),
        antes=list(kit.antes),
        small_bet=kit.small_bet,
        big_bet=kit.big_bet,
        starting_stacks=list(kit.starting_stacks),
        actions=list(kit.log),
        players=list(hand.names),
        finishing_stacks=list(hand.finishing_stacks),
        hand=hand.number,
        user_defined_fields=extra,
    )


def phh_text(hand: FinishedHand) -> str:
    """The PHH text of a finished hand (TOML, as pokerkit writes it)."""
    return hand_history(hand).dumps()


def kit_from_phh(text: str) -> tuple[KitHand, list[int]]:
    """Parse PHH text back (with pokerkit) into a replayable hand and its finishing stacks."""
    hh = BancoHandHistory.loads(text)
    opener = hh.user_defined_fields.get("_opener")
    assert hh.small_bet is not None and hh.finishing_stacks is not None
    kit = KitHand(
        variant="draw" if hh.variant.endswith("D") else "stud",
        structure="fixed" if hh.variant.startswith("F") else "pot",
        small_bet=hh.small_bet,
        players=list(hh.user_defined_fields["_player_ids"]),
        starting_stacks=list(hh.starting_stacks),
        antes=list(hh.antes),
        log=list(hh.actions),
        opener=int(opener[1:]) - 1 if opener else None,
    )
    return kit, list(hh.finishing_stacks)
