"""Provable fairness: the per-card Merkle commitment of a shoe (:mod:`.merkle`, the exact
encoding) and the offline checks of a published record (:mod:`.check`).

``python -m games.verify FILE`` reads a JSON record (``-`` for standard input), prints
one ``OK``/``FAIL`` line per check and exits 1 when any check fails (2: unreadable).
"""
