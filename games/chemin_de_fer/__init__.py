"""Chemin de fer (docs/rules.md §1), one package readable as the game's rules.

* :mod:`.state`: the table state, the actions, the phases;
* :mod:`.bank`: between coups — bank auction, bank passing, retiring, new shoe;
* :mod:`.coup`: one coup — staking, deal, naturals, draws, showdown, payment;
* :mod:`.tableau`: the classic banker tableau, shown to the banker as a hint;
* :mod:`.engine`: the engine contract over those (``ENGINE``).
"""

from games.chemin_de_fer.engine import ENGINE, CheminDeFer, default_action
from games.chemin_de_fer.state import State
from games.chemin_de_fer.tableau import banker_hint, banker_tableau_hint

__all__ = ["ENGINE", "CheminDeFer", "State", "banker_hint", "banker_tableau_hint",
           "default_action"]
