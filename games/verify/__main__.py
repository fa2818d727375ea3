"""``python -m games.verify FILE``: check a published shoe or hand record offline."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from games.verify.check import check


def main(argv: list[str]) -> int:
    """Check the record in ``argv[0]``; 0 when every check holds, 1 when one fails, 2 when
    the file cannot be read as a JSON object."""
    if len(argv) != 1:
        print("usage: python -m games.verify FILE  (a /verify record; - reads stdin)")
        return 2
    try:
        text = sys.stdin.read() if argv[0] == "-" else Path(argv[0]).read_text("utf-8")
        record = json.loads(_json_part(text))
    except (OSError, ValueError) as exc:
        print(f"FAIL read: {exc}")
        return 2
    if not isinstance(record, dict | list):
        print("FAIL read: not a JSON object or list")
        return 2
    results = check(record)
    for result in results:
        print(result.line())
    bad = sum(not r.ok for r in results)
    print("ALL OK" if not bad else f"{bad} CHECK(S) FAILED")
    return 1 if bad else 0


def _json_part(text: str) -> str:
    """The JSON in ``text``: a saved /verify message may have words around it."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return text
    start = min(starts)
    end = text.rfind("}" if text[start] == "{" else "]")
    return text[start:end + 1] if start < end else text


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
