"""JSON out, fast: orjson for the answers and events of the hot paths (issue 21).

The standard library's encoder was some 2 % of a tournament cycle's CPU (a command's answer
holds the whole view, ~11 KB); orjson writes the same JSON several times faster. Same output
as ``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``: compact UTF-8, keys that
are numbers, booleans or ``None`` written as strings as the standard library does
(``OPT_NON_STR_KEYS``). Unlike it, orjson writes NaN and infinities as ``null``: no engine
value is one. An integer beyond 64 bits, which orjson cannot write, falls back to the standard
library, so a log holding one (a client's number copied into an event) is still served.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from fastapi.responses import JSONResponse

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(data: Any) -> bytes:
    """``data`` as compact UTF-8 JSON."""
    try:
        return orjson.dumps(data, option=_OPTIONS)
    except orjson.JSONEncodeError:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return text.encode()


def dumps_text(data: Any) -> str:
    return dumps(data).decode()


class FastJSONResponse(JSONResponse):
    """A ``JSONResponse`` rendered by orjson (same JSON, see the module docstring)."""

    def render(self, content: Any) -> bytes:
        return dumps(content)
