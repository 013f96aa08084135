"""The five orders of a Dynamics turn and their commitments (rules/dynamics.md §2, §6.4).

An order placed face down is logged twice: its content (order and nonce) in an event whose
audience is its owner's seat only, and a public commitment, the SHA-256 of the order and its
nonce. At its reveal the order and the nonce become public and anybody recomputes the hash
(:func:`verify`). Nonces come from the match secret held by the server
(:func:`app.engine.match.derive_seed`) and the placement's running number, so an order placed
again before the lock gets a fresh nonce and no earlier choice can be tested afterwards.
"""

from __future__ import annotations

import enum
import hashlib

from app.engine.match.dice import derive_seed

__all__ = ["COMMITMENT_FORMAT", "Order", "commitment", "order_nonce", "verify"]

COMMITMENT_FORMAT = "auspex-dynamics-order/1"


class Order(enum.StrEnum):
    TACTICAL_MOVE = "tactical_move"  # move, then shoot the declared target [L31-L33]
    FORCED_MARCH = "forced_march"  # move and run, no shooting [L110-L112]
    FIRE = "fire"  # every weapon at the declared target, no move [L80]
    ASSAULT = "assault"  # move, shoot the target, charge it: one round [L90-L100]
    DEEP_STRIKE = "deep_strike"  # the order of a unit arriving by deep strike [L122-L126]


def order_nonce(secret: str | bytes, turn: int, unit: str, placement: int) -> str:
    """A 126-bit nonce (32 hex digits) that only the holder of the match secret can compute."""
    parts = (derive_seed(secret, "dynamics-order-nonce", turn, unit, placement, i) for i in (0, 1))
    return "".join(f"{p:016x}" for p in parts)


def commitment(turn: int, unit: str, order: Order | str, nonce: str) -> str:
    """The hex SHA-256 of ``format|turn|unit|order|nonce`` (fields separated by 0x1f)."""
    text = "\x1f".join((COMMITMENT_FORMAT, str(turn), unit, str(order), nonce))
    return hashlib.sha256(text.encode()).hexdigest()


def verify(digest: str, turn: int, unit: str, order: Order | str, nonce: str) -> bool:
    """What the opponent's phone checks at the reveal: the order is the one committed to."""
    return commitment(turn, unit, order, nonce) == digest
