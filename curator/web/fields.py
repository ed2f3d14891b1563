"""The JSON API's field checks: type, length and range of every value a client sends, before
any service or database sees it. A JSON body can hold what a form cannot (a dict, 1e400 read
as infinity, NaN, a lone surrogate that no UTF-8 database column takes, an integer beyond 64
bits), and each of those used to surface as a 500. Here each is an `InputError` (422) naming
the field; the services keep their own rules (what a template is, which decisions exist).
The URL's integers are bounded here too: `BoundedInt` is the app's `<int:…>` converter
(web/context.py registers it), `query_int` reads an integer query parameter."""

from __future__ import annotations

import math
from typing import Any, Literal, overload

from flask import abort
from werkzeug.routing import IntegerConverter

from curator.core.errors import N_, InputError, NotFound

MAX_ID = 2**63 - 1  # the largest id a database integer holds; anything above names no row


def _encodable(name: str, value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{name} must be valid Unicode text (it holds a lone surrogate)") from None
    return value


@overload
def text(
    body: dict[str, Any], name: str, max_length: int, required: Literal[True] = True, allow_empty: bool = True
) -> str: ...
@overload
def text(
    body: dict[str, Any], name: str, max_length: int, required: bool = True, allow_empty: bool = True
) -> str | None: ...
def text(
    body: dict[str, Any], name: str, max_length: int, required: bool = True, allow_empty: bool = True
) -> str | None:
    """A string field of at most `max_length` characters (None when absent and not required)."""
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise InputError(f"{name} " + ("must be a string" if value is not None else "is required"))
    if len(value) > max_length:
        raise InputError(f"{name} must be at most {max_length} characters")
    if not allow_empty and not value:
        raise InputError(f"{name} must not be empty")
    return _encodable(name, value)


def number(body: dict[str, Any], name: str, low: float, high: float) -> float | None:
    """A finite JSON number in [low, high] (None when absent); true/false are not numbers."""
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{name} must be a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{name} must be a finite number")
    if not low <= value <= high:
        raise InputError(f"{name} must be between {low:g} and {high:g}")
    return float(value)


def url_part(name: str, value: str, max_length: int) -> str:
    """A path segment (language code, relation id): bounded, so no giant key reaches a query."""
    if len(value) > max_length:
        raise NotFound(f"no such {name}")
    return _encodable(name, value)


class BoundedInt(IntegerConverter):
    """The app's `<int:…>` converter: werkzeug's, bounded to what a database integer holds
    (SQLite raises OverflowError beyond 2**63 - 1), so a larger number matches no route: 404."""

    def __init__(
        self, map, fixed_digits: int = 0, min: int | None = None, max: int | None = MAX_ID, signed: bool = False
    ) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


def query_int(name: str, default: int, low: int = 1, high: int = MAX_ID) -> int:
    """An integer from the query string (absent or empty: `default`), in [low, high], else 422."""
    from flask import request

    raw = request.args.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if len(raw) <= 20 else None  # int() of a huge string is slow and may refuse
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise InputError(
            N_("%(name)s must be a whole number from %(low)s to %(high)s."),
            params={"name": name, "low": low, "high": high},
        )
    return value


def row_id(value: int) -> int:
    """An <int:…> from the URL: werkzeug accepts any size, a database integer does not."""
    if not 0 < value <= MAX_ID:
        raise NotFound("no such item")
    return value


def body() -> dict[str, Any]:
    """The request's JSON object, or 400."""
    from flask import request

    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        abort(400, "send a JSON object (Content-Type: application/json)")
    return data
