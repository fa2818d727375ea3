"""The per-card commitment of a shoe: a SHA-256 Merkle tree (docs/rules.md §0.5).

This module is the specification an outside verifier reimplements; it uses
the standard library only. All hashes are SHA-256; hex is lower case.

* **Positions.** Cards are numbered ``0 .. n-1`` in the *committed* order,
  before the cut. A shoe cut at ``c`` deals committed position ``(c + k) % n``
  as its ``k``-th card (``k`` from 0), so the card at position ``p`` is dealt
  ``(p - c) % n``-th.
* **Per-card salt.** ``salt_p = HMAC-SHA256(key = UTF-8(shoe salt),
  msg = b"card" || u32be(p))``, first 16 bytes. Publishing one card's salt
  tells nothing about another's; publishing the shoe salt reveals them all.
* **Leaf.** ``leaf_p = SHA-256(0x00 || u32be(p) || ASCII(card) || salt_p)``,
  the card being its two characters (``"Ah"``, ``"Td"``).
* **Node.** ``node = SHA-256(0x01 || left || right)``. A level with an odd
  number of nodes carries its last node up unchanged. The root of a single
  leaf is the leaf. The prefixes keep a leaf from passing for a node.
* **Multiproof** (the proof of several cards at once, or of one): the
  revealed leaves are ``[position, card, salt hex]``; ``nodes`` are the other
  hashes needed, in the order this walk consumes them: level by level from
  the leaves up, over the known indices in ascending order, for each known
  index ``i`` whose sibling ``i ^ 1`` exists and is not known, take the next
  hash; the known indices of the next level are ``i // 2``. The walk ends
  with the single root, which must equal the published commitment.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence

LEAF, NODE = b"\x00", b"\x01"
SALT_BYTES = 16


def card_salt(shoe_salt: str, position: int) -> str:
    """The hex salt of the card at committed ``position`` of a shoe salted ``shoe_salt``."""
    mac = hmac.new(shoe_salt.encode(), b"card" + position.to_bytes(4, "big"), hashlib.sha256)
    return mac.digest()[:SALT_BYTES].hex()


def leaf_hash(position: int, card: str, salt_hex: str) -> bytes:
    """The leaf of ``card`` at committed ``position`` with its salt."""
    return hashlib.sha256(LEAF + position.to_bytes(4, "big") + card.encode("ascii")
                          + bytes.fromhex(salt_hex)).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The parent of two nodes."""
    return hashlib.sha256(NODE + left + right).digest()


def _up(level: Sequence[bytes]) -> list[bytes]:
    out = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
    if len(level) % 2:
        out.append(level[-1])  # an odd last node is carried up unchanged
    return out


def levels(leaves: Sequence[bytes]) -> list[list[bytes]]:
    """Every level of the tree, leaves first, the root's level (one node) last."""
    if not leaves:
        raise ValueError("a tree needs at least one leaf")
    out = [list(leaves)]
    while len(out[-1]) > 1:
        out.append(_up(out[-1]))
    return out


def shoe_leaves(order: Sequence[str], shoe_salt: str) -> list[bytes]:
    """The leaves of a shoe in committed ``order`` salted ``shoe_salt``."""
    return [leaf_hash(p, c, card_salt(shoe_salt, p)) for p, c in enumerate(order)]


def root_of(order: Sequence[str], shoe_salt: str) -> str:
    """The Merkle root (hex) of a shoe: its commitment."""
    return levels(shoe_leaves(order, shoe_salt))[-1][0].hex()


def multiproof(tree: list[list[bytes]], positions: Iterable[int]) -> list[str]:
    """The hashes (hex) that prove the leaves at ``positions`` of ``tree`` (see above)."""
    known = sorted(set(positions))
    nodes: list[str] = []
    for level in tree[:-1]:
        have = set(known)
        for i in known:
            j = i ^ 1
            if j < len(level) and j not in have:
                nodes.append(level[j].hex())
        known = sorted({i // 2 for i in known})
    return nodes


def root_from_proof(size: int, leaves: Sequence[tuple[int, str, str]],
                    nodes: Sequence[str]) -> str:
    """The root that ``leaves`` (position, card, salt hex) and ``nodes`` imply in a tree of
    ``size`` leaves; raises ``ValueError`` when the proof does not fit such a tree."""
    if size < 1:
        raise ValueError("a tree needs at least one leaf")
    known: dict[int, bytes] = {}
    for position, card, salt in leaves:
        if not 0 <= position < size:
            raise ValueError(f"position {position} outside the shoe")
        h = leaf_hash(position, card, salt)
        if known.get(position, h) != h:
            raise ValueError(f"position {position} revealed twice, differently")
        known[position] = h
    if not known:
        raise ValueError("nothing to prove")
    supply = iter(nodes)
    width = size
    while width > 1:
        have = dict(known)
        for i in sorted(known):
            j = i ^ 1
            if j < width and j not in have:
                try:
                    have[j] = bytes.fromhex(next(supply))
                except StopIteration:
                    raise ValueError("the proof has too few hashes") from None
        known = {}
        for i in sorted(have):
            if i // 2 in known:
                continue
            left, right = have.get(i & ~1), have.get(i | 1)
            if i | 1 >= width:  # the odd last node goes up unchanged
                known[i // 2] = have[i]
            else:
                assert left is not None and right is not None
                known[i // 2] = node_hash(left, right)
        width = (width + 1) // 2
    if next(supply, None) is not None:
        raise ValueError("the proof has hashes left over")
    return known[0].hex()
