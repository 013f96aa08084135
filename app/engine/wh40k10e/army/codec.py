"""Lossless plain-JSON codec for the army dataclasses (catalogue, roster).

:func:`to_plain` turns a frozen dataclass tree into dicts, lists, strings, ints, bools and
``None``; :func:`from_plain` reads it back, checking every type on the way and naming the
offending field (``"datasheets[3].points[0].points"``) in a :class:`FormatError`. Supported field
types: ``int``, ``str``, ``bool``, ``None`` unions, ``tuple[X, ...]``, ``Mapping[str, X]``,
``StrEnum`` subclasses and nested (even recursive) dataclasses.

A field equal to its declared default is left out of the output (so a catalogue of hundreds of
datasheets stays small) and restored from the default on reading: the round trip
``from_plain(cls, to_plain(x)) == x`` holds for every value.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeAlias, TypeVar, cast

from app.engine.errors import N_, Message, ProfileError

__all__ = ["MAX_DEPTH", "FormatError", "from_plain", "to_plain"]

T = TypeVar("T")

MAX_DEPTH = 64  # nesting bound on input: a hostile document cannot blow the stack


class FormatError(ProfileError):
    """A plain-JSON document does not have the shape of the expected dataclass."""


Plain: TypeAlias = "dict[str, Plain] | list[Plain] | str | int | bool | None"


_HINTS: dict[type, dict[str, Any]] = {}
_FIELDS: dict[type, tuple[dataclasses.Field[Any], ...]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(f for f in dataclasses.fields(cls) if f.init)
    return found


def _default_of(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def to_plain(obj: object) -> Plain:
    """``obj`` (a dataclass, tuple, mapping, enum or scalar) as plain JSON values."""
    if isinstance(obj, enum.Enum):
        return cast(Plain, obj.value)
    if obj is None or isinstance(obj, bool | int | str):
        return obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Plain] = {}
        for f in _fields(type(obj)):
            value = getattr(obj, f.name)
            default = _default_of(f)
            if default is not dataclasses.MISSING and value == default:
                continue
            out[f.name] = to_plain(value)
        return out
    if isinstance(obj, tuple | list):
        return [to_plain(v) for v in obj]
    if isinstance(obj, Mapping):
        return {str(k): to_plain(obj[k]) for k in sorted(obj)}
    raise TypeError(f"cannot encode {type(obj).__name__}")


def _kind(value: object) -> Message:
    """What a JSON value is, in words a page translates (``str()``: the English)."""
    if value is None:
        return Message(N_("null"))
    if isinstance(value, bool):
        return Message(N_("a boolean"))
    if isinstance(value, int):
        return Message(N_("an integer"))
    if isinstance(value, str):
        return Message(N_("a string"))
    if isinstance(value, list):
        return Message(N_("a list"))
    if isinstance(value, dict):
        return Message(N_("an object"))
    return Message(type(value).__name__)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _decode(tp: Any, data: object, path: str, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise FormatError(path or "(root)", N_("too deeply nested"))
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if data is None and type(None) in args:
            return None
        non_none = [a for a in args if a is not type(None)]
        if len(non_none) == 1:
            return _decode(non_none[0], data, path, depth)
        raise TypeError(f"unsupported union {tp!r}")  # pragma: no cover - programming error
    if tp is type(None):
        if data is not None:
            raise FormatError(path, N_("expected null, got %(kind)s"), kind=_kind(data))
        return None
    if tp is bool:
        if not isinstance(data, bool):
            raise FormatError(path, N_("expected a boolean, got %(kind)s"), kind=_kind(data))
        return data
    if tp is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise FormatError(path, N_("expected an integer, got %(kind)s"), kind=_kind(data))
        return data
    if tp is str:
        if not isinstance(data, str):
            raise FormatError(path, N_("expected a string, got %(kind)s"), kind=_kind(data))
        return data
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in tp)
            raise FormatError(
                path,
                N_("expected one of %(allowed)s, got %(value)s"),
                allowed=allowed,
                value=repr(data),
            ) from None
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(data, list):
            raise FormatError(path, N_("expected a list, got %(kind)s"), kind=_kind(data))
        item_type = args[0]
        return tuple(_decode(item_type, v, f"{path}[{i}]", depth + 1) for i, v in enumerate(data))
    if origin in (Mapping, dict) or tp is dict:
        key_t, value_t = typing.get_args(tp)
        if key_t is not str:  # pragma: no cover - programming error
            raise TypeError("only str-keyed mappings are supported")
        if not isinstance(data, dict):
            raise FormatError(path, N_("expected an object, got %(kind)s"), kind=_kind(data))
        return {
            k: _decode(value_t, v, _join(path, str(k)), depth + 1)
            for k, v in data.items()
            if _require_str_key(k, path)
        }
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _decode_dataclass(tp, data, path, depth)
    raise TypeError(f"unsupported type {tp!r}")  # pragma: no cover - programming error


def _require_str_key(key: object, path: str) -> bool:
    if not isinstance(key, str):
        raise FormatError(path, N_("object keys must be strings"))
    return True


def _decode_dataclass(cls: type[Any], data: object, path: str, depth: int) -> Any:
    if not isinstance(data, dict):
        raise FormatError(
            path or "(root)", N_("expected an object, got %(kind)s"), kind=_kind(data)
        )
    hints = _hints(cls)
    known = {f.name for f in _fields(cls)}
    unknown = sorted(k for k in data if k not in known)
    if unknown:
        raise FormatError(_join(path, str(unknown[0])), N_("unknown field"))
    kwargs: dict[str, Any] = {}
    for f in _fields(cls):
        sub = _join(path, f.name)
        if f.name in data:
            kwargs[f.name] = _decode(hints[f.name], data[f.name], sub, depth + 1)
        elif _default_of(f) is dataclasses.MISSING:
            raise FormatError(sub, N_("missing"))
    try:
        return cls(**kwargs)
    except ProfileError as exc:
        raise exc.with_prefix(path) from None
    except (TypeError, ValueError) as exc:
        raise FormatError(path or "(root)", str(exc)) from None


def from_plain(cls: type[T], data: object, path: str = "") -> T:
    """Read ``data`` (plain JSON values) as an instance of the dataclass ``cls``."""
    return cast(T, _decode_dataclass(cls, data, path, 0))
