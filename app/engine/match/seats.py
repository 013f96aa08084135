"""The two seats of a match, in every rule system: ``A`` (who created it) and ``B``."""

from __future__ import annotations

import enum

__all__ = ["SEATS", "Seat", "other"]


class Seat(enum.StrEnum):
    A = "A"
    B = "B"


SEATS = (Seat.A, Seat.B)


def other(seat: Seat) -> Seat:
    return Seat.B if seat is Seat.A else Seat.A
