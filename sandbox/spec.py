"""The Bot API spec (api.min.json) and validation of call parameters against it.

api.min.json is Bot API 10.2 (its ``version`` and ``source`` keys say so): the 10.1 file of
PaulSonOfLars/telegram-bot-api-spec with the 10.2 additions (ephemeral messages and new
types) merged in from aiogram's generated schema, with short descriptions of our own.

Telegram accepts parameters as a query string, a form or a JSON body; in the
form encodings every value is a string and complex values are JSON-serialized.
`validate_call` turns whatever arrived into typed Python values, or raises
`ApiError` with a Telegram-style description.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


class ApiError(Exception):
    """A Bot API error answer: HTTP code, description, optional retry_after."""

    def __init__(self, code: int, description: str, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.retry_after = retry_after

    def payload(self) -> dict[str, Any]:
        """The JSON body Telegram answers with."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.code,
            "description": self.description,
        }
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


def bad_request(text: str) -> ApiError:
    """A 400 with Telegram's "Bad Request: " prefix."""
    return ApiError(400, f"Bad Request: {text}")


@cache
def load_spec() -> dict[str, Any]:
    """The parsed api.min.json shipped with the package."""
    text = resources.files("sandbox").joinpath("api.min.json").read_text("utf-8")
    spec: dict[str, Any] = json.loads(text)
    return spec


def methods() -> dict[str, Any]:
    """Method name -> method description (fields, returns)."""
    result: dict[str, Any] = load_spec()["methods"]
    return result


def types() -> dict[str, Any]:
    """Type name -> type description (fields or subtypes)."""
    result: dict[str, Any] = load_spec()["types"]
    return result


def find_method(name: str) -> dict[str, Any] | None:
    """The spec of a method; Telegram matches method names case-insensitively."""
    table = methods()
    if name in table:
        return table[name]  # type: ignore[no-any-return]
    lowered = name.lower()
    for key, value in table.items():
        if key.lower() == lowered:
            return value  # type: ignore[no-any-return]
    return None


class _TypeMismatch(Exception):
    pass


_TRUE = {"true", "1", "True", "TRUE"}
_FALSE = {"false", "0", "False", "FALSE", ""}


def _coerce_basic(kind: str, value: Any) -> Any:
    if kind == "Integer":
        if isinstance(value, bool):
            raise _TypeMismatch
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                raise _TypeMismatch from None
        raise _TypeMismatch
    if kind == "Float":
        if isinstance(value, bool):
            raise _TypeMismatch
        if isinstance(value, int | float):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                raise _TypeMismatch from None
        raise _TypeMismatch
    if kind == "Boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            return value != 0
        if isinstance(value, str) and value in _TRUE:
            return True
        if isinstance(value, str) and value in _FALSE:
            return False
        raise _TypeMismatch
    if kind == "String":
        if isinstance(value, str):
            return value
        # Telegram accepts a JSON number where a string is expected (ids).
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        raise _TypeMismatch
    if kind == "InputFile":
        return value
    raise KeyError(kind)


_BASIC = {"Integer", "Float", "Boolean", "String", "InputFile"}


def _coerce(kind: str, value: Any, depth: int = 0) -> Any:
    """Coerce one value to one spec type ("Integer", "Array of X", "Message")."""
    if kind in _BASIC:
        return _coerce_basic(kind, value)
    if kind.startswith("Array of "):
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise _TypeMismatch from None
        if not isinstance(value, list):
            raise _TypeMismatch
        inner = kind.removeprefix("Array of ")
        return [_coerce(inner, item, depth + 1) for item in value]
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise _TypeMismatch from None
    if not isinstance(value, dict):
        raise _TypeMismatch
    type_spec = types().get(kind)
    if type_spec is None or depth > 8:
        return value
    subtypes = type_spec.get("subtypes")
    if subtypes:
        for sub in subtypes:
            try:
                return _coerce(sub, value, depth + 1)
            except _TypeMismatch:
                continue
        raise _TypeMismatch
    fields = type_spec.get("fields", [])
    out = dict(value)
    for field in fields:
        name = field["name"]
        if name not in value:
            if field["required"]:
                raise _TypeMismatch
            continue
        out[name] = _coerce_union(field["types"], value[name], depth + 1)
    # Discriminated subtypes ("type": "chat") must name themselves.
    for field in fields:
        if field["name"] in ("type", "status", "source") and field["required"]:
            must = _discriminator(field.get("description", ""))
            if must is not None and out.get(field["name"]) != must:
                raise _TypeMismatch
    return out


def _discriminator(description: str) -> str | None:
    for marker in ("must be ", "always “", 'always "'):
        if marker in description:
            rest = description.split(marker, 1)[1]
            word = rest.strip("“”\"' ").split()[0] if rest.strip() else ""
            return word.strip("“”\".,'") or None
    return None


def _coerce_union(kinds: list[str], value: Any, depth: int) -> Any:
    # Try JSON-decodable objects before "String" so `"{...}"` is parsed
    # where an object is allowed, and ints before strings for chat_id.
    ordered = sorted(kinds, key=lambda k: (k == "String", k in _BASIC))
    for kind in ordered:
        try:
            return _coerce(kind, value, depth)
        except _TypeMismatch:
            continue
    raise _TypeMismatch


def validate_call(method: str, raw: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Check a call against the spec; return the canonical method name and typed params.

    Raises ApiError: 404 "Not Found" for an unknown method, 400 for unknown or
    missing parameters and values of the wrong type.
    """
    spec = find_method(method)
    if spec is None:
        raise ApiError(404, "Not Found")
    fields = {f["name"]: f for f in spec.get("fields", [])}
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        raise bad_request(f"unknown parameter '{unknown[0]}' for method {spec['name']}")
    params: dict[str, Any] = {}
    for name, field in fields.items():
        if name not in raw or raw[name] is None:
            if field["required"]:
                raise _missing(spec["name"], name)
            continue
        try:
            params[name] = _coerce_union(field["types"], raw[name], 0)
        except _TypeMismatch:
            expected = " or ".join(field["types"])
            raise bad_request(f"can't parse parameter '{name}': expected {expected}") from None
    return spec["name"], params


# Telegram's own texts for the commonest missing parameters.
_MISSING_TEXTS = {
    "chat_id": "chat_id is empty",
    "text": "message text is empty",
    "message_id": "message identifier is not specified",
    "callback_query_id": "query is too old and response timeout expired or query ID is invalid",
    "user_id": "user not found",
}


def _missing(method: str, name: str) -> ApiError:
    if name in _MISSING_TEXTS:
        return bad_request(_MISSING_TEXTS[name])
    return bad_request(f"parameter '{name}' is required for method {method}")


def minimal_value(kind: str, depth: int = 0) -> Any:
    """A plausible minimal value of a spec type, filling only required fields."""
    defaults: dict[str, Any] = {
        "Integer": 0,
        "Float": 0.0,
        "Boolean": True,
        "String": "",
        "InputFile": "",
    }
    if kind in defaults:
        return defaults[kind]
    if kind.startswith("Array of "):
        return []
    type_spec = types().get(kind)
    if type_spec is None or depth > 4:
        return {}
    if type_spec.get("subtypes"):
        return minimal_value(type_spec["subtypes"][0], depth + 1)
    out: dict[str, Any] = {}
    for field in type_spec.get("fields", []):
        if field["required"]:
            value = minimal_value(field["types"][0], depth + 1)
            if field["name"] in ("type", "status", "source"):
                value = _discriminator(field.get("description", "")) or value
            if field["types"][0] == "Boolean":
                value = False
            out[field["name"]] = value
    return out


def minimal_result(method: str) -> Any:
    """What a method without a real implementation answers: True or a minimal object."""
    spec = find_method(method)
    returns = spec.get("returns", ["Boolean"]) if spec else ["Boolean"]
    kind = returns[0]
    if kind == "Boolean":
        return True
    return minimal_value(kind)
