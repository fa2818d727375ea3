"""Checks of a published shoe or hand record, offline (``python -m games.verify FILE``).

A record is the JSON object the bot publishes (``/verify``, a ``shoe_revealed``
event, a player's private proof of his own cards): ``commitment`` (the Merkle
root shown before the cut), ``size``, ``cut``, ``cutter``, ``by_timeout`` (his time
ran out and the timeout rule cut), ``seated``, ``coup`` and ``burned``, and then either

* the whole shoe (banking games): ``order`` (committed order) and ``salt``
  (the shoe salt every card's salt derives from), and ``dealt``, the cards in
  the order they came out; or
* some cards only (poker): ``shown``, a list of ``[position, card, salt]``,
  and ``nodes``, the hashes that prove them (:mod:`games.verify.merkle`).

A list of cards may also be one string of two-character cards (``"AhTd2c"``),
which keeps a whole 8-deck shoe inside one Telegram message.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from games.verify.merkle import card_salt, root_from_proof, root_of

RANKS, SUITS = "23456789TJQKA", "cdhs"


@dataclass(frozen=True)
class Check:
    """One check: what was checked, whether it holds, and a short why."""

    name: str
    ok: bool
    detail: str = ""

    def line(self) -> str:
        """``OK name: detail`` or ``FAIL name: detail``."""
        return f"{'OK  ' if self.ok else 'FAIL'} {self.name}" + (f": {self.detail}"
                                                                  if self.detail else "")


def cards_of(value: Any) -> list[str]:
    """A list of cards from a list or a string of two-character cards; refuses anything else."""
    if isinstance(value, str):
        text = value.replace(" ", "")
        if len(text) % 2:
            raise ValueError("a card string has an odd length")
        value = [text[i:i + 2] for i in range(0, len(text), 2)]
    if not isinstance(value, list) or not all(
            isinstance(c, str) and len(c) == 2 and c[0] in RANKS and c[1] in SUITS
            for c in value):
        raise ValueError("not a list of cards")
    return list(value)


def timeout_cut(commitment: str, seated: list[int], coup: int, size: int) -> int:
    """docs/rules.md §0.4: the cut a timeout takes (same as :func:`games.cards.timeout_cut`)."""
    text = f"cut|{commitment}|{','.join(str(p) for p in seated)}|{coup}"
    return int(hashlib.sha256(text.encode("ascii")).hexdigest(), 16) % max(1, size)


def check(record: dict[str, Any] | list[Any]) -> list[Check]:
    """Every check of ``record`` (or of each of a list: a poker hand's deck and stubs), in
    order; a malformed record gives one failing check."""
    if isinstance(record, list):
        if not record:
            return [Check("record", False, "an empty list")]
        return [Check(f"shoe {i + 1}: {c.name}", c.ok, c.detail)
                for i, r in enumerate(record) for c in check(r)]
    try:
        return list(_checks(record))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return [Check("record", False, f"malformed: {exc}")]


def _checks(r: dict[str, Any]) -> Iterator[Check]:
    root, size, cut = str(r["commitment"]), int(r["size"]), int(r["cut"])
    burned = cards_of(r.get("burned", []))
    yield from _cut(r, root, size, cut)
    if "order" in r:
        order, salt = cards_of(r["order"]), str(r["salt"])
        yield Check("size", len(order) == size, f"{len(order)} cards, {size} announced")
        yield Check("root", root_of(order, salt) == root,
                    f"the tree of order and salt gives the commitment {root[:16]}…")
        dealing = order[cut:] + order[:cut]
        dealt = cards_of(r.get("dealt", []))
        yield Check("burned", dealing[: len(burned)] == burned,
                    f"{len(burned)} burned card(s) are the first dealt")
        for k, card in enumerate(dealt):
            p = (cut + k) % size
            yield Check(f"dealt #{k + 1} {card}", k < size and order[p] == card,
                        f"committed position {p}, salt {card_salt(salt, p)}")
        return
    shown = [(int(p), str(c), str(s)) for p, c, s in r["shown"]]
    for _, card, _ in shown:
        cards_of([card])
    nodes = [str(x) for x in r.get("nodes", [])]
    if not shown:
        yield Check("shown cards", True, "no card was shown, nothing to prove")
        return
    try:
        ok = root_from_proof(size, shown, nodes) == root
        why = f"{len(shown)} card(s) and {len(nodes)} hashes give the commitment {root[:16]}…"
    except ValueError as exc:
        ok, why = False, str(exc)
    yield Check("proof", ok, why)
    for p, card, _ in shown:
        yield Check(f"card {card}", ok, f"committed position {p}, dealt #{(p - cut) % size + 1}")
    burned_at = {(cut + k) % size: c for k, c in enumerate(burned)}
    for p, card, _ in shown:
        if p in burned_at:
            yield Check(f"burned {card}", burned_at[p] == card, f"dealt #{(p - cut) % size + 1}")


def _cut(r: dict[str, Any], root: str, size: int, cut: int) -> Iterator[Check]:
    yield Check("cut", 0 <= cut < max(1, size), f"at {cut} of {size}")
    seated = [int(p) for p in r.get("seated") or []]
    if not seated:
        return
    auto = timeout_cut(root, seated, int(r.get("coup", 0)), size)
    who = r.get("cutter")
    if "by_timeout" not in r:  # a record from before shoes said who cut: the values tell
        how = ("the timeout rule's value" if cut == auto
               else f"chosen by player {who} (a timeout would have cut at {auto})")
        yield Check("cut origin", True, how)
    elif r["by_timeout"]:  # player ``who``'s time ran out: the rule's value, exactly
        yield Check("cut origin", cut == auto, "the timeout rule's value" if cut == auto
                    else f"the timeout rule gives {auto}, the record says {cut}")
    else:
        yield Check("cut origin", True, f"chosen by player {who}")


CARD_LISTS = ("order", "dealt", "burned")


def compact(record: dict[str, Any] | list[dict[str, Any]]) -> str:
    """``record`` (or several) as the short JSON the verifier reads: card lists as strings of
    two-character cards, no spaces, so a whole shoe fits in one Telegram message."""
    def squeeze(r: dict[str, Any]) -> dict[str, Any]:
        return {k: "".join(v) if k in CARD_LISTS and isinstance(v, list) else v
                for k, v in r.items()}
    out = [squeeze(r) for r in record] if isinstance(record, list) else squeeze(record)
    return json.dumps(out, separators=(",", ":"))
