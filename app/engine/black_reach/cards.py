"""Action cards (rules/black-reach.md §2.10, [L2068-L2202]): the data and the draw.

The printed cards are not in the seed: only their anatomy, the two ways to play one (a Battle
Event whose text the players read and apply, or its Alternative Bonus) and the five kinds of
Alternative Bonus [L2132-L2154]. A forces file lists each faction's cards (``cards``: id,
name, faction, copies, the bonus and its +X, the event text the players typed in); a side's
deck is every copy of its faction's cards. A scenario's hand size deals them.

A card in play is one copy, ``<card id>#<copy>``; a draw picks one of the cards left in the
deck with D6s (:func:`draw_index`), so the seeded dice of the log are the shuffle.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from app.engine.black_reach.forces import Faction
from app.engine.roller import Roller

__all__ = [
    "MAX_CARD_COPIES",
    "MAX_CARD_TEXT",
    "MAX_CARD_VALUE",
    "MAX_DECK",
    "ActionCard",
    "BonusKind",
    "card_of",
    "deck_of",
    "draw_index",
]

MAX_DECK = 60  # copies in one faction's deck
MAX_CARD_COPIES = 10
MAX_CARD_VALUE = 6  # the +X of an Alternative Bonus
MAX_CARD_TEXT = 600  # the Battle Event text typed in by the players
DRAW_TRIES = 20


class BonusKind(StrEnum):
    """The five Alternative Bonus icons [L2132-L2154]."""

    MOVEMENT = "movement"  # +X squares to the MV of one Movement Action
    ASSAULT = "assault"  # +X in an Assault, attacking or defending
    SHOOTING = "shooting"  # +X to a Shooting Action
    ARMOUR_SAVE = "armour_save"  # the unit may try its (yellow) armour save
    ANY_ROLL = "any_roll"  # +X to a die roll


@dataclass(frozen=True)
class ActionCard:
    id: str
    name: str
    faction: Faction
    bonus: BonusKind
    value: int = 0  # the +X (0 for the armour-save bonus)
    copies: int = 1
    event: str = ""  # the Battle Event's text, as the players typed it in


def deck_of(cards: Iterable[ActionCard], faction: Faction) -> tuple[str, ...]:
    """Every copy of ``faction``'s cards, ``<id>#<n>``, in the file's order."""
    return tuple(
        f"{c.id}#{n}" for c in cards if c.faction is faction for n in range(1, c.copies + 1)
    )


def card_of(copy: str) -> str:
    """The card id of one copy (``<id>#<n>``)."""
    return copy.rsplit("#", 1)[0]


def draw_index(roller: Roller, n: int, label: str) -> int:
    """A fair pick of one of ``n`` cards (0..n-1) with D6s: the dice read as base-6 digits,
    rolled again when they fall in the uneven remainder; after 20 tries the last is read
    modulo ``n``."""
    if n < 1:
        raise ValueError("no card to draw")
    digits, span = 1, 6
    while span < n:
        digits, span = digits + 1, span * 6
    limit = span - span % n
    value = 0
    for _ in range(DRAW_TRIES):
        value = 0
        for _ in range(digits):
            value = value * 6 + roller.d6(label, stage="draw") - 1
        if value < limit:
            return value % n
    return value % n
