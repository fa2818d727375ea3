"""/verify's texts: the shoe in play's commitment, how a revealed shoe was dealt, its record.

Pure functions over a table's view (its shoe's typed facts) and the last revealed shoe the
table keeps (:class:`Revealed`, the record's ``revealed``): what the group reads on
/verify, and how a closed table's last shoe was made (docs/rules.md §0.4, §0.5).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup
from pydantic import BaseModel

from bot.view import i18n, render
from games.engine import Purpose, ShoeFacts, ShoeRevealed
from games.verify.check import compact


class Revealed(BaseModel):
    """The last revealed shoe: its record, whole, and its typed facts."""

    record: dict[str, Any]
    shoe: ShoeFacts
    whole: bool = False
    shown: int = 0
    purpose: Purpose = Purpose.COUPS

    @classmethod
    def kept(cls, data: dict[str, Any] | None) -> Revealed | None:
        """The record's ``revealed``, or None (none yet, or kept in an older shape)."""
        try:
            return cls.model_validate(data) if data else None
        except ValueError:
            return None

    @classmethod
    def of(cls, event: ShoeRevealed) -> Revealed:
        """The shoe an event revealed."""
        return cls(record=event.record, shoe=event.shoe, whole=event.whole,
                   shown=event.shown, purpose=event.purpose)


def revealed_record(event: ShoeRevealed) -> dict[str, Any]:
    """A revealed shoe as the table record keeps it for /verify (:class:`Revealed`)."""
    return Revealed.of(event).model_dump(mode="json")


def verify_text(lang: str, shoe: ShoeFacts | None, names: dict[int, str],
                revealed: Revealed | None) -> str:
    """/verify's text for the group: the commitment of the shoe in play (``shoe``), and its
    cut once public; then the last revealed shoe, with how to check its record."""
    commitment = shoe.commitments[0] if shoe is not None and shoe.commitments else None
    parts: list[str] = [i18n.t(lang, "verify_current", commitment=commitment) if commitment
             else i18n.t(lang, "verify_none")]
    if commitment and shoe is not None and shoe.cut is not None:
        # public already: the cut and the burned cards were shown
        parts[0] += "\n" + " ".join([
            i18n.t(lang, "verify_current_cut", cut=shoe.cut,
                   how=cut_how(lang, shoe, names)), *burned_text(lang, shoe)])
    if revealed is not None:
        # the record goes last and whole: the verifier reads it from a saved message
        record = Markup("<pre>{}</pre>").format(compact(revealed.record))
        parts += [revealed_text(lang, revealed, names, with_record=False),
                  i18n.t(lang, "verify_how")]
        while parts and len("\n\n".join(parts)) + len(record) + 2 > render.MAX_TEXT:
            parts.pop(0)  # the record is what the verifier needs whole
        return "\n\n".join([*parts, record])
    return "\n\n".join(parts)


def proof_sent_text(lang: str, name: str, hand: int, text: str) -> str:
    """/verify's text for the group when the asker's proof of his own cards of ``hand`` went
    to his private chat: that it did, then the group's ``text``."""
    return "\n\n".join([i18n.t(lang, "proof_sent", name=name, hand=hand), text])


def your_proof_text(lang: str, hand: int, record: str) -> Markup:
    """The proof of a player's own cards of his latest hand, for his private chat."""
    return i18n.t(lang, "your_proof", hand=hand, record=record)


def revealed_text(lang: str, revealed: Revealed, names: dict[int, str],
                  with_record: bool = True) -> str:
    """How a revealed shoe's dealing order was made (docs/rules.md §0.4, §0.5): committed
    order, the cut and who chose it, burned cards, what is proven; then the record that
    ``python -m games.verify`` checks."""
    shoe = revealed.shoe
    what = (i18n.t(lang, "verify_all") if revealed.whole
            else i18n.t(lang, "verify_shown", count=revealed.shown))
    text = " ".join([i18n.t(lang, "verify_revealed", commitment=shoe.commitments[0],
                            size=shoe.size, cut=shoe.cut or 0,
                            how=cut_how(lang, shoe, names, revealed.purpose)),
                     *burned_text(lang, shoe), what])
    return text + Markup("\n<pre>{}</pre>").format(compact(revealed.record)) if with_record \
        else text


def burned_text(lang: str, shoe: ShoeFacts) -> list[str]:
    """The sentence on a shoe's cards burned face up after the cut, if any were."""
    return [i18n.t(lang, "verify_burned", burned=len(shoe.burned))] if shoe.burned else []


def cut_how(lang: str, shoe: ShoeFacts, names: dict[int, str],
            purpose: Purpose = Purpose.COUPS) -> str:
    """Who set a shoe's cut, in words (docs/rules.md §0.4), as the shoe recorded it: the
    cutter's own depth, or the timeout rule's when his time ran out (a chosen depth may
    equal the rule's: the record, not the values, tells them apart); a shoe nobody cuts
    (poker's deck, a draw for the bank) says why."""
    cut = shoe.cut or 0
    name = None if shoe.cutter is None else names.get(shoe.cutter, str(shoe.cutter))
    if shoe.by_timeout:
        return i18n.t(lang, "verify_cut_rule", player=name or "?", cut=cut, size=shoe.size)
    if name is not None:
        return i18n.t(lang, "verify_cut_by", player=name, cut=cut)
    if purpose is Purpose.BANK_DRAW:
        return i18n.t(lang, "verify_uncut_draw")
    return i18n.t(lang, "verify_uncut_hand" if purpose is Purpose.ONE_HAND else "verify_uncut")
