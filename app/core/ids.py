"""Row ids and whole numbers typed by people: bounded, ASCII digits only.

Every table's id is an ``INTEGER`` (Postgres: at most 2**31 - 1). A bigger number can name no
row, and handed to the database it fails inside the driver (SQLite: ``OverflowError``;
Postgres: "integer out of range"), so ids are bounded where they come in:

- path ids of every route, by :func:`path_ids_in_range` (an app-wide dependency): 404. It reads
  each ``int`` path parameter as FastAPI will (a sign, ``_`` between digits and a ``.0`` are
  accepted), so a negative number or one beyond ``MAX_ID`` never reaches a route;
- ids in JSON bodies and queries, by :data:`Id` / ``le=MAX_ID``: 422;
- numbers read from form fields and headers, by :func:`parse_int`.

``str.isdigit`` is not a test for "a number Python can read": it is true for "²" and "①",
which ``int()`` refuses.
"""

from __future__ import annotations

from typing import Annotated, Any, get_args

from fastapi import Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import Field, TypeAdapter, ValidationError

from app.core.errors import NotFound

MAX_ID = 2**31 - 1

Id = Annotated[int, Field(ge=1, le=MAX_ID)]


def parse_int(text: object, lo: int = 0, hi: int = MAX_ID) -> int | None:
    """The whole number ``text`` spells in ASCII digits (an optional leading ``-``), if it lies
    in ``lo..hi``; else ``None``."""
    if not isinstance(text, str):
        return None
    value = text.strip()
    digits = value.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 18:
        return None
    number = int(value)
    return number if lo <= number <= hi else None


_INT = TypeAdapter(int)


def _is_int(annotation: Any) -> bool:
    return annotation is int or any(_is_int(arg) for arg in get_args(annotation))


def _dependants(dependant: Dependant) -> list[Dependant]:
    return [dependant, *(d for sub in dependant.dependencies for d in _dependants(sub))]


# id(route) -> (route, names); routes are made once at start-up (and are not hashable)
_INT_PARAMS: dict[int, tuple[APIRoute, frozenset[str]]] = {}


def _int_path_params(route: APIRoute) -> frozenset[str]:
    """The names of the route's path parameters read as ``int`` (ids, and list positions)."""
    known = _INT_PARAMS.get(id(route))
    if known is not None and known[0] is route:
        return known[1]
    names = frozenset(
        param.name
        for dependant in _dependants(route.dependant)
        for param in dependant.path_params
        if _is_int(param.field_info.annotation)
    )
    _INT_PARAMS[id(route)] = (route, names)
    return names


def _out_of_range(value: str) -> bool:
    """``value`` is a number FastAPI reads as an ``int`` that no id or position can be."""
    try:
        number = _INT.validate_python(value)
    except ValidationError:
        return False  # not a number at all: the route's own validation answers 422
    return not 0 <= number <= MAX_ID


async def path_ids_in_range(request: Request) -> None:
    """A path id no row can have (negative, or beyond ``MAX_ID``) is simply not found, before
    the route's own dependencies (login, CSRF) and its body are read: it never reaches the
    database.

    ``int`` path parameters are read as FastAPI reads them; a ``str`` parameter that is all
    ASCII digits (a catalogue's id or slug) is an id too.
    """
    route = request.scope.get("route")
    ints = _int_path_params(route) if isinstance(route, APIRoute) else frozenset()
    for name, value in request.path_params.items():
        if isinstance(value, int):  # a route's ``{name:int}`` converter read it already
            if not 0 <= value <= MAX_ID:
                raise NotFound("There is nothing with this id.")
            continue
        if not isinstance(value, str):
            continue
        if name in ints:
            impossible = _out_of_range(value)
        else:
            impossible = value.isdigit() and parse_int(value, 0) is None
        if impossible:
            raise NotFound("There is nothing with this id.")
