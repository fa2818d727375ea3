"""``python -m games.simulate GAME --coups N --seed S ...`` prints outcome figures as JSON."""

from __future__ import annotations

import argparse
import importlib
import json
import sys

# command-line name -> module under games.simulate
SIMULATIONS = {
    "chemin-de-fer": "chemin_de_fer",
    "baccarat": "baccarat",
    "banchok": "banchok",
    "twenty-one": "twenty_one",
    "draw-poker": "poker",
    "stud-poker": "poker",
    "poker-hands": "poker_hands",
}


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, run the game's simulation, print its JSON."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in SIMULATIONS:
        print(f"usage: python -m games.simulate {{{','.join(SIMULATIONS)}}} [options]",
              file=sys.stderr)
        return 2
    game = argv[0]
    module = importlib.import_module(f"games.simulate.{SIMULATIONS[game]}")
    parser = argparse.ArgumentParser(prog=f"python -m games.simulate {game}")
    module.add_arguments(parser)
    args = parser.parse_args(argv[1:])
    args.game = game
    print(json.dumps(module.run(args), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
