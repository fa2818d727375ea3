"""What the Mini App's routes answer with: JSON, never cached."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web


def json_reply(body: dict[str, Any], status: int = 200) -> web.Response:
    """``body`` as JSON (UTF-8 as it is), not to be cached."""
    return web.Response(text=json.dumps(body, ensure_ascii=False), status=status,
                        content_type="application/json", headers={"Cache-Control": "no-store"})
