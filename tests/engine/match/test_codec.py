"""The strict dataclass codec: exact round trips, and refusals that name the field."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.match.codec import CodecError, RawJson, decoder_for, to_json


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Inner:
    n: int
    x: float = 0.5


@dataclass(frozen=True, slots=True)
class Outer:
    name: str
    colour: Colour
    items: tuple[Inner, ...]
    pair: tuple[str, int]
    tags: frozenset[str] = frozenset()
    by_colour: Mapping[Colour, int] = field(default_factory=dict)
    maybe: Inner | None = None
    flag: bool = False
    raw: RawJson = None


def roundtrip(value: object) -> object:
    return decoder_for(type(value))(json.loads(json.dumps(to_json(value))), "")


def test_round_trip_of_nested_values() -> None:
    value = Outer(
        name="x",
        colour=Colour.BLUE,
        items=(Inner(1), Inner(2, 3.25)),
        pair=("a", 2),
        tags=frozenset({"b", "a"}),
        by_colour={Colour.RED: 3},
        maybe=Inner(4),
        flag=True,
        raw={"k": [1, "two", None]},
    )
    assert roundtrip(value) == value
    encoded = to_json(value)
    assert isinstance(encoded, dict)
    assert encoded["tags"] == ["a", "b"]  # sets are encoded sorted: stable output


@pytest.mark.parametrize(
    ("data", "path", "message"),
    [
        ({"name": "x", "colour": "green", "items": [], "pair": ["a", 1]}, "colour", "one of"),
        (
            {"name": "x", "colour": "red", "items": [{"n": "1"}], "pair": ["a", 1]},
            "items[0].n",
            "integer",
        ),
        ({"name": "x", "colour": "red", "items": [], "pair": ["a"]}, "pair", "2 items"),
        (
            {"name": "x", "colour": "red", "items": [], "pair": ["a", 1], "oops": 1},
            "",
            "unknown field",
        ),
        ({"colour": "red", "items": [], "pair": ["a", 1]}, "", "missing field 'name'"),
        (
            {"name": "x", "colour": "red", "items": [], "pair": ["a", 1], "flag": 1},
            "flag",
            "true or false",
        ),
        ({"name": "x", "colour": "red", "items": [], "pair": ["a", True]}, "pair[1]", "integer"),
        (
            {"name": "x", "colour": "red", "items": [], "pair": ["a", 1], "raw": float("nan")},
            "raw",
            "finite",
        ),
    ],
)
def test_bad_data_is_refused_with_its_path(data: Any, path: Any, message: Any) -> None:
    with pytest.raises(CodecError) as info:
        decoder_for(Outer)(data, "")
    assert info.value.path == path
    assert message in info.value.message


@given(
    st.lists(
        st.tuples(st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False)),
        max_size=20,
    )
)
def test_round_trip_property(pairs: Any) -> None:
    value = Outer("p", Colour.RED, tuple(Inner(n, x) for n, x in pairs), ("k", len(pairs)))
    assert roundtrip(value) == value
