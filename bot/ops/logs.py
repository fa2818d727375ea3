"""How the bot logs: plain text lines (the default) or one JSON object per line (LOG_FORMAT=json).

A JSON line holds ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message`` (the
formatted message) and, when the record carries one, ``exc_info`` (the traceback as
text); extra fields given with ``extra={...}`` come along when they are plain JSON
values. What is logged is the same in both formats: no hidden card at INFO or above
(the call sites see to it; the format only changes the shape).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# what every LogRecord has: anything else on a record came from ``extra``
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line."""
        out: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            out["exc_info"] = self.formatException(record.exc_info)
        elif record.exc_text:
            out["exc_info"] = record.exc_text
        if record.stack_info:
            out["stack_info"] = self.formatStack(record.stack_info)
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in out and _plain(value):
                out[key] = value
        return json.dumps(out, ensure_ascii=False, default=str)


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def configure(level: str, fmt: str = "text") -> None:
    """The root logger at ``level`` in ``fmt``; chatty libraries turned down (httpx logs
    every URL, the token included)."""
    if fmt not in FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(FORMATS)}, not {fmt!r}")
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
    logging.captureWarnings(True)  # a library's warning is a record too (JSON, like the rest)
    for name in ("httpx", "httpcore", "apscheduler"):
        logging.getLogger(name).setLevel(logging.WARNING)
