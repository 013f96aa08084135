"""Context's copies carry every field but the one they change (they are written field by
field for speed, issue 17: a field added to Context must be added to them too)."""

from __future__ import annotations

from dataclasses import fields, replace

from app.catalog.bsdata.model import Context


def _counter(scope: str, child: str) -> float | None:
    return 1.0 if child == "m" else None


def _other(scope: str, child: str) -> float | None:
    return None


BASE = Context(
    "primary",
    "force",
    frozenset({"force", "crusade"}),
    count=_counter,
    detachments=frozenset({"d1", "d2"}),
    chosen=frozenset({"d1"}),
    legends=False,
)


def test_every_field_of_context_is_set_by_the_base_case() -> None:
    """The case below differs from the defaults in each field, so a copy that dropped one
    would not compare equal."""
    default = Context("", None, frozenset())
    assert all(getattr(BASE, f.name) != getattr(default, f.name) for f in fields(Context))


def test_copies_equal_dataclasses_replace() -> None:
    assert BASE.with_legends(True) == replace(BASE, legends=True)
    assert BASE.with_counter(_other) == replace(BASE, count=_other)
    assert BASE.with_detachments(frozenset({"d3"})) == replace(BASE, detachments=frozenset({"d3"}))
    assert BASE.in_detachment(frozenset({"d2"})) == replace(BASE, chosen=frozenset({"d2"}))
    assert BASE.in_detachment(None) == replace(BASE, chosen=None)
    assert len(fields(Context)) == 7  # the copies name these seven fields
