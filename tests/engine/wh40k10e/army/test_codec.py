"""The plain-JSON codec: strict types, bounded depth, defaults restored."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from app.engine.wh40k10e.army import KeywordOp, KeywordRule
from app.engine.wh40k10e.army.codec import MAX_DEPTH, FormatError, from_plain, to_plain


@dataclass(frozen=True, slots=True)
class Small:
    count: int
    flag: bool = False
    tags: tuple[str, ...] = ()
    extra: dict[str, int] = field(default_factory=dict)
    note: str | None = None


def test_round_trip_and_defaults() -> None:
    value = Small(3, tags=("a", "b"), extra={"z": 1, "a": 2})
    plain = to_plain(value)
    assert plain == {"count": 3, "tags": ["a", "b"], "extra": {"a": 2, "z": 1}}
    assert from_plain(Small, plain) == value
    assert from_plain(Small, {"count": 0}) == Small(0)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"count": True}, "count"),  # a boolean is not an integer
        ({"count": 1.5}, "count"),
        ({"count": 1, "flag": 1}, "flag"),
        ({"count": 1, "tags": "ab"}, "tags"),
        ({"count": 1, "tags": [1]}, "tags[0]"),
        ({"count": 1, "extra": {"a": "1"}}, "extra.a"),
        ({"count": 1, "note": 5}, "note"),
        ({}, "count"),
        ({"count": 1, "other": 1}, "other"),
        ([], "(root)"),
    ],
)
def test_type_errors_name_the_field(data: object, field: str) -> None:
    with pytest.raises(FormatError) as info:
        from_plain(Small, data)
    assert info.value.field == field


def test_recursive_types_and_depth_bound() -> None:
    rule = KeywordRule.negate(KeywordRule.any_of(KeywordRule.has("A"), KeywordRule.has("B")))
    assert from_plain(KeywordRule, to_plain(rule)) == rule
    deep: dict[str, object] = {"op": "keyword", "keyword": "A"}
    for _ in range(MAX_DEPTH + 5):
        deep = {"op": "not", "args": [deep]}
    with pytest.raises(FormatError, match="too deeply nested"):
        from_plain(KeywordRule, deep)
    assert KeywordOp("all") is KeywordOp.ALL
