"""A strict, type-directed JSON codec for frozen dataclasses (events, commands, mission data).

Events and commands are frozen dataclasses whose fields are plain values: ``int``, ``float``,
``str``, ``bool``, ``None``, ``StrEnum`` members, ``tuple[X, ...]``, fixed tuples,
``frozenset[X]``, ``Mapping[str, X]``, other dataclasses, ``X | None`` and :data:`RawJson`
(any JSON value, kept as given). :func:`to_json` turns such a value into JSON-ready data;
:func:`decoder_for` builds (once per type, cached) a function that rebuilds it, refusing unknown
keys, missing required keys and wrong types with a :class:`CodecError` naming the path
(``"event.damage[2].model"``).

:class:`TaggedCodec` adds a ``"type"`` tag for a family of classes that each carry a
``kind: ClassVar[str]`` (the events of a rule system, its commands), so a log or an API request
can name the class. A second rule system needs nothing here: it lists its own classes.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import Annotated, Any, ClassVar, TypeAlias, Union, get_args, get_origin

from app.engine.errors import EngineError

__all__ = [
    "CodecError",
    "Decoder",
    "JsonObject",
    "JsonValue",
    "RawJson",
    "Tagged",
    "TaggedCodec",
    "decoder_for",
    "to_json",
]

JsonValue: TypeAlias = (
    "bool | int | float | str | Sequence[JsonValue] | Mapping[str, JsonValue] | None"
)

JsonObject: TypeAlias = dict[str, Any]
"""What the engine hands out as JSON (views, logs, problems): plain dicts of JSON values."""

_RAW_MARK = "auspex:raw-json"
RawJson: TypeAlias = Annotated[object, _RAW_MARK]
"""A field holding any JSON value as given (validated to be JSON, never interpreted)."""

Decoder: TypeAlias = Callable[[object, str], Any]

MAX_DEPTH = 32


class CodecError(EngineError):
    """Data that does not decode into the expected type; ``path`` says where."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path or '(root)'}: {message}")
        self.path = path
        self.message = message


class Tagged:
    """Base of a class family decoded by its ``kind`` tag (events, commands)."""

    __slots__ = ()
    kind: ClassVar[str]


# -- encoding --------------------------------------------------------------------------------


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def to_json(value: object) -> JsonValue:
    """JSON-ready data for a codec value (dataclass, enum, tuple, frozenset, mapping...)."""
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CodecError("", f"{value!r} is not a finite number")
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: to_json(getattr(value, name)) for name in _field_names(type(value))}
    if isinstance(value, Mapping):
        return {str(to_json(k)): to_json(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        items = [to_json(v) for v in value]
        items.sort(key=_sort_key)
        return items
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    raise CodecError("", f"cannot encode a {type(value).__name__}")


def _sort_key(v: JsonValue) -> tuple[str, str]:
    return (type(v).__name__, repr(v))


# -- decoding --------------------------------------------------------------------------------


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _dec_int(value: object, path: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise CodecError(path, f"expected an integer, got {_type_name(value)}")


def _dec_float(value: object, path: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        f = float(value)
        if math.isfinite(f):
            return f
    raise CodecError(path, f"expected a finite number, got {_type_name(value)}")


def _dec_str(value: object, path: str) -> str:
    if isinstance(value, str):
        return value
    raise CodecError(path, f"expected a string, got {_type_name(value)}")


def _dec_bool(value: object, path: str) -> bool:
    if isinstance(value, bool):
        return value
    raise CodecError(path, f"expected true or false, got {_type_name(value)}")


def _dec_none(value: object, path: str) -> None:
    if value is None:
        return
    raise CodecError(path, f"expected null, got {_type_name(value)}")


def _check_raw(value: object, path: str, depth: int = 0) -> object:
    """A deep copy of a JSON value, refusing anything JSON cannot hold."""
    if depth > MAX_DEPTH:
        raise CodecError(path, "nested too deeply")
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CodecError(path, "not a finite number")
        return value
    if isinstance(value, list | tuple):
        return [_check_raw(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        out: dict[str, object] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise CodecError(path, "object keys must be strings")
            out[k] = _check_raw(v, f"{path}.{k}", depth + 1)
        return out
    raise CodecError(path, f"{type(value).__name__} is not a JSON value")


def _dec_raw(value: object, path: str) -> object:
    return _check_raw(value, path)


def decoder_for(tp: object) -> Decoder:
    """The decoder of a type hint (cached); ``decoder(data, path) -> value``."""
    return _decoder_for(tp)


@cache
def _decoder_for(tp: Any) -> Decoder:
    if tp is int:
        return _dec_int
    if tp is float:
        return _dec_float
    if tp is str:
        return _dec_str
    if tp is bool:
        return _dec_bool
    if tp is None or tp is type(None):
        return _dec_none
    if tp is object or tp is Any:
        return _dec_raw
    origin = get_origin(tp)
    if origin is Annotated:
        base, *extras = get_args(tp)
        if _RAW_MARK in extras:
            return _dec_raw
        return _decoder_for(base)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_decoder(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_decoder(tp)
    if origin in (Union, types.UnionType):
        return _union_decoder(get_args(tp))
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return _seq_decoder(_decoder_for(args[0]), tuple)
        return _fixed_tuple_decoder(tuple(_decoder_for(a) for a in args))
    if origin is frozenset:
        return _seq_decoder(_decoder_for(get_args(tp)[0]), frozenset)
    if origin in (dict, Mapping, typing.Mapping):
        key_tp, val_tp = get_args(tp)
        return _mapping_decoder(_decoder_for(key_tp), _decoder_for(val_tp))
    raise TypeError(f"the codec cannot decode {tp!r}")


def _enum_decoder(cls: type[enum.Enum]) -> Decoder:
    by_value = {m.value: m for m in cls}
    allowed = ", ".join(repr(v) for v in by_value)

    def dec(value: object, path: str) -> enum.Enum:
        try:
            return by_value[value]
        except (KeyError, TypeError):
            raise CodecError(path, f"expected one of {allowed}, got {value!r}") from None

    return dec


def _union_decoder(args: tuple[Any, ...]) -> Decoder:
    non_none = [a for a in args if a is not type(None)]
    optional = len(non_none) != len(args)
    if len(non_none) == 1:
        inner = _decoder_for(non_none[0])
        if not optional:
            return inner

        def dec_optional(value: object, path: str) -> object:
            return None if value is None else inner(value, path)

        return dec_optional
    decoders = [_decoder_for(a) for a in non_none]

    def dec_union(value: object, path: str) -> object:
        if value is None and optional:
            return None
        for d in decoders:
            try:
                return d(value, path)
            except CodecError:
                continue
        raise CodecError(path, f"{_type_name(value)} matches none of the allowed types")

    return dec_union


def _seq_decoder(item: Decoder, build: Callable[[Iterable[Any]], Any]) -> Decoder:
    def dec(value: object, path: str) -> object:
        if not isinstance(value, list | tuple):
            raise CodecError(path, f"expected a list, got {_type_name(value)}")
        return build([item(v, f"{path}[{i}]") for i, v in enumerate(value)])

    return dec


def _fixed_tuple_decoder(items: tuple[Decoder, ...]) -> Decoder:
    def dec(value: object, path: str) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple) or len(value) != len(items):
            raise CodecError(path, f"expected a list of {len(items)} items")
        return tuple(
            d(v, f"{path}[{i}]") for i, (d, v) in enumerate(zip(items, value, strict=True))
        )

    return dec


def _mapping_decoder(key: Decoder, val: Decoder) -> Decoder:
    def dec(value: object, path: str) -> dict[Any, Any]:
        if not isinstance(value, Mapping):
            raise CodecError(path, f"expected an object, got {_type_name(value)}")
        return {key(k, path): val(v, f"{path}.{k}") for k, v in value.items()}

    return dec


def _dataclass_decoder(cls: type, tag: str | None = None) -> Decoder:
    """Decoder of a dataclass from an object with exactly its fields (plus ``tag``, ignored)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    # decoders are resolved lazily so that recursive dataclasses do not recurse at build time
    specs: list[tuple[str, Any, bool]] = []
    for f in fields:
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        specs.append((f.name, hints[f.name], required))
    names = frozenset(name for name, _, _ in specs) | ({tag} if tag else set())
    resolved: list[tuple[str, Decoder, bool]] = []

    def dec(value: object, path: str) -> object:
        if type(value) is not dict and not isinstance(value, Mapping):
            raise CodecError(path, f"expected an object, got {_type_name(value)}")
        if not resolved:
            resolved.extend((n, _decoder_for(t), r) for n, t, r in specs)
        if not names.issuperset(value):
            unknown = sorted(str(k) for k in value if k not in names)
            raise CodecError(path, f"unknown field(s): {', '.join(unknown)}")
        kwargs: dict[str, object] = {}
        prefix = f"{path}." if path else ""
        for name, d, required in resolved:
            if name in value:
                kwargs[name] = d(value[name], prefix + name)
            elif required:
                raise CodecError(path, f"missing field {name!r}")
        try:
            return cls(**kwargs)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, EngineError):
                raise
            raise CodecError(path, str(exc)) from None

    return dec


# -- tagged families -------------------------------------------------------------------------


class TaggedCodec:
    """Encode/decode one family of tagged dataclasses as ``{"type": kind, **fields}``."""

    def __init__(self, name: str, classes: Iterable[type[Tagged]]) -> None:
        self.name = name
        self._by_kind: dict[str, type[Tagged]] = {}
        for cls in classes:
            kind = cls.kind
            if kind in self._by_kind:
                raise ValueError(f"two {name} classes share the kind {kind!r}")
            if not dataclasses.is_dataclass(cls):
                raise TypeError(f"{cls.__name__} is not a dataclass")
            self._by_kind[kind] = cls
        self._decoders: dict[str, Decoder] = {}

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self._by_kind)

    def classes(self) -> tuple[type[Tagged], ...]:
        return tuple(self._by_kind.values())

    def __contains__(self, cls: object) -> bool:
        return isinstance(cls, type) and self._by_kind.get(getattr(cls, "kind", "")) is cls

    def encode(self, value: Tagged) -> JsonObject:
        cls = type(value)
        if self._by_kind.get(cls.kind) is not cls:
            raise CodecError("type", f"{cls.__name__} is not a registered {self.name}")
        body = to_json(value)
        assert isinstance(body, dict)
        return {"type": cls.kind, **body}

    def decode(self, data: object, path: str = "") -> Tagged:
        if type(data) is not dict and not isinstance(data, Mapping):
            raise CodecError(path, f"expected an object, got {_type_name(data)}")
        kind = data.get("type")
        if not isinstance(kind, str):
            raise CodecError(path, f"a {self.name} needs a string 'type'")
        cls = self._by_kind.get(kind)
        if cls is None:
            known = ", ".join(sorted(self._by_kind))
            raise CodecError(
                f"{path}.type" if path else "type", f"unknown {self.name} {kind!r} (known: {known})"
            )
        decode = self._decoders.get(kind)
        if decode is None:
            decode = self._decoders[kind] = _dataclass_decoder(cls, tag="type")
        value = decode(data, path)
        assert isinstance(value, cls)
        return value
