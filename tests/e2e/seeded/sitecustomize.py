"""Put first on a bot process's PYTHONPATH by an e2e test: with ``SHOE_SEED`` set, every
shoe the process shuffles comes from one ``random.Random(SHOE_SEED)`` instead of the
system's secure source (``games.cards.secure_rng``), so the run deals the same cards each
time. Nothing else changes; without ``SHOE_SEED`` this does nothing."""

import os

if os.environ.get("SHOE_SEED"):
    import random

    from games import cards

    _seeded = random.Random(os.environ["SHOE_SEED"])
    cards.secure_rng = lambda: _seeded
