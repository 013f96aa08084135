"""orjson writes the hot paths' JSON (issue 21): the same JSON as the standard library's."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from fastapi.responses import JSONResponse

from app.core import fastjson


class Colour(StrEnum):
    RED = "red"


SAMPLES: list[Any] = [
    {"version": 12, "view": {"units": [{"id": "u1", "wounds": 3, "name": "Ork Boyz ☠"}]}},
    {1: "one", 2: [True, False, None], "é": 0.1, "big": 10**15, "neg": -3.25},
    {"seat": Colour.RED, "nested": {"a": [], "b": {}}, "quote": 'a"b\\c\n'},
    [1, (2, 3), "x"],
]


def test_the_same_json_as_the_standard_library() -> None:
    for data in SAMPLES:
        expected = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        assert fastjson.dumps_text(data) == expected
        assert fastjson.dumps(data) == expected.encode()


def test_the_response_is_a_json_response_with_the_same_body() -> None:
    for data in SAMPLES:
        fast = fastjson.FastJSONResponse(data)
        assert isinstance(fast, JSONResponse)
        assert fast.body == JSONResponse(data).body
        assert fast.headers["content-type"] == "application/json"


def test_an_integer_beyond_64_bits_is_written_as_the_standard_library_does() -> None:
    data = {"seed": 2**64, "request": {"n": -(2**70)}, "name": "é"}
    expected = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    assert fastjson.dumps_text(data) == expected
    assert fastjson.FastJSONResponse(data).body == expected.encode()
