"""Row ids and whole numbers typed by people: bounded, ASCII digits only.

Every table's id is an ``INTEGER`` (Postgres: at most 2**31 - 1). A bigger number can name no
row, and handed to the database it fails inside the driver (SQLite: ``OverflowError``;
Postgres: "integer out of range"), so ids are bounded where they come in:

- path ids of every route, by :func:`path_ids_in_range` (an app-wide dependency): 404;
- ids in JSON bodies and queries, by :data:`Id` / ``le=MAX_ID``: 422;
- numbers read from form fields and headers, by :func:`parse_int`.

``str.isdigit`` is not a test for "a number Python can read": it is true for "²" and "①",
which ``int()`` refuses.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Request
from pydantic import Field

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


async def path_ids_in_range(request: Request) -> None:
    """A path segment of digits is an id: one no row can have is simply not found."""
    for value in request.path_params.values():
        if isinstance(value, str) and value.isdigit() and parse_int(value, 0) is None:
            raise NotFound("There is nothing with this id.")
