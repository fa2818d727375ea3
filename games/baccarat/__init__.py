"""Baccarat, old Russian rules (docs/rules.md §2): a banker by auction against 2–11 punters.

Read in this order: :mod:`.state` (data), :mod:`.tenure` (auction, shoe,
tenure between coups), :mod:`.coup` (deal, naturals, payment),
:mod:`.rules` (the engine: actions, timeouts, views).
"""

from games.baccarat.rules import BaccaratEngine
from games.baccarat.state import BaccaratSeat, BaccaratSettings, BaccaratState
from games.engine import Engine

ENGINE: Engine[BaccaratState] = BaccaratEngine()

__all__ = ["ENGINE", "BaccaratEngine", "BaccaratSeat", "BaccaratSettings", "BaccaratState"]
