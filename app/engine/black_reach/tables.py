"""The remaining dice tables of §9.1, each a small pure function, with exact odds where a die is
rolled (every die a D6, note §8 item 1). Readings: docs/rulings/black-reach.md.

- Sniper table [L1324-L1344]: 1 nothing, 2-3 Suppressed, 4-5 a step, 6+ a step and Suppressed;
  the roll takes Suppressed and obstacle penalties; a table on the tile replaces it.
- Ram [L1129-L1139]: each side 1 die + DV (heavy) or ⌈DV/2⌉ (light); the rammer strictly
  higher: the target takes a step.
- Instable (N) [L1995-L2009]: ≥ N works; below, the activation is lost; on 1 also a step.
- Perils of the Warp [L2808-L2918]: 1 die + level − 2 per Suppressed; Librarian ≤ 1 draws a
  marker; Weirdboy ≤ 1 explodes, 2-3 one step, ≥ 4 works.
- Destruction / Démolisseur [L1174-L1194, L1746-L1753]: N dice, each ≥ 4 one point.
- Indirect-fire dispersion [L1438-L1477]: 1-4 scatter, 5-6 on target; never Suppressed.
- Armour save [L1869-L1888]: 1 die ≥ N; yellow only with a card; none against Perforant or
  Perçant.
- Heavy-vehicle damage location [L658-L699]: die + modifiers, clamped to 1..6, read on the
  vehicle's damage set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from app.engine.black_reach.board import Intercase
from app.engine.black_reach.odds import best_of
from app.engine.black_reach.pipeline import SUPPRESSED_PENALTY, damage_location
from app.engine.distributions import Dist

__all__ = [
    "D6",
    "DEFAULT_SNIPER_TABLE",
    "DESTRUCTION_SUCCESS",
    "WEAPON_MARKERS",
    "ArmourColour",
    "DamageFace",
    "DamageMarker",
    "InstableOutcome",
    "LibrarianPerils",
    "SniperEffect",
    "VehicleDamage",
    "WeirdboyPerils",
    "absorb_steps",
    "armour_save_odds",
    "crushing_points",
    "damage_face_odds",
    "damage_location",
    "damage_location_odds",
    "destruction_points",
    "dispersion_odds",
    "hull_suppressed",
    "instable_odds",
    "instable_outcome",
    "librarian_perils",
    "perils_odds",
    "ram_odds",
    "ram_value",
    "sniper_effect",
    "sniper_odds",
    "structure_destroyed",
    "tile_broken",
    "weirdboy_perils",
]

D6 = best_of(1)
DESTRUCTION_SUCCESS = 4  # each die at 4 or more is one Destruction point [L1186, L1751]


def _odds(dist: Dist, classify: Callable[[int], str]) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for value, p in dist.items():
        key = classify(value)
        out[key] = out.get(key, Fraction(0)) + p
    return out


# -- sniper -----------------------------------------------------------------------------------


class SniperEffect(StrEnum):
    NOTHING = "nothing"
    SUPPRESSED = "suppressed"
    STEP = "step"
    STEP_AND_SUPPRESSED = "step_and_suppressed"  # Suppressed only if not destroyed


# (lowest result, effect), highest first; below every row: nothing [L1331-L1338] (RECON §7)
DEFAULT_SNIPER_TABLE: tuple[tuple[int, SniperEffect], ...] = (
    (6, SniperEffect.STEP_AND_SUPPRESSED),
    (4, SniperEffect.STEP),
    (2, SniperEffect.SUPPRESSED),
)


def sniper_effect(
    result: int, table: Sequence[tuple[int, SniperEffect]] = DEFAULT_SNIPER_TABLE
) -> SniperEffect:
    for lowest, effect in sorted(table, reverse=True):
        if result >= lowest:
            return effect
    return SniperEffect.NOTHING


def sniper_odds(
    suppressed: int = 0,
    obstacles: int = 0,
    bonus: int = 0,
    table: Sequence[tuple[int, SniperEffect]] = DEFAULT_SNIPER_TABLE,
) -> dict[str, Fraction]:
    """Exact odds of each effect: 1 die + bonus − 2 per Suppressed − obstacle penalties."""
    result = D6 + (bonus - SUPPRESSED_PENALTY * suppressed - obstacles)
    return _odds(result, lambda r: sniper_effect(r, table).value)


# -- ram --------------------------------------------------------------------------------------


def ram_value(dv: int, heavy: bool) -> int:
    """What a vehicle adds to its ram die: its DV (heavy) or half of it rounded up (light)."""
    return dv if heavy else -(-dv // 2)


def ram_odds(
    rammer_dv: int,
    rammer_heavy: bool,
    target_dv: int,
    target_heavy: bool,
    rammer_suppressed: int = 0,
    target_suppressed: int = 0,
) -> Fraction:
    """P(the target takes a step): the rammer's total strictly higher; a tie does nothing."""
    a = D6 + (ram_value(rammer_dv, rammer_heavy) - SUPPRESSED_PENALTY * rammer_suppressed)
    b = D6 + (ram_value(target_dv, target_heavy) - SUPPRESSED_PENALTY * target_suppressed)
    return sum((pa * pb for x, pa in a.items() for y, pb in b.items() if x > y), Fraction(0))


# -- Instable ---------------------------------------------------------------------------------


class InstableOutcome(StrEnum):
    WORKS = "works"
    LOST = "lost"  # the activation is lost, the token discarded
    LOST_AND_STEP = "lost_and_step"


def instable_outcome(result: int, n: int) -> InstableOutcome:
    if result >= n:
        return InstableOutcome.WORKS
    return InstableOutcome.LOST_AND_STEP if result <= 1 else InstableOutcome.LOST


def instable_odds(n: int, suppressed: int = 0) -> dict[str, Fraction]:
    return _odds(D6 - SUPPRESSED_PENALTY * suppressed, lambda r: instable_outcome(r, n).value)


# -- Perils of the Warp -----------------------------------------------------------------------


class LibrarianPerils(StrEnum):
    DRAW_MARKER = "draw_marker"
    WORKS = "works"


class WeirdboyPerils(StrEnum):
    EXPLODES = "explodes"  # the power does not apply; the Weirdboy is destroyed
    STEP = "step"  # the power applies; 1 step; his Suppressed markers discarded
    WORKS = "works"


def librarian_perils(result: int) -> LibrarianPerils:
    return LibrarianPerils.DRAW_MARKER if result <= 1 else LibrarianPerils.WORKS


def weirdboy_perils(result: int) -> WeirdboyPerils:
    if result <= 1:
        return WeirdboyPerils.EXPLODES
    return WeirdboyPerils.STEP if result <= 3 else WeirdboyPerils.WORKS


def perils_odds(level: int, suppressed: int, weirdboy: bool) -> dict[str, Fraction]:
    """1 die + level − 2 per Suppressed marker, the cost just paid included [L2817-L2819]."""
    result = D6 + (level - SUPPRESSED_PENALTY * suppressed)
    if weirdboy:
        return _odds(result, lambda r: weirdboy_perils(r).value)
    return _odds(result, lambda r: librarian_perils(r).value)


# -- Destruction ------------------------------------------------------------------------------


def destruction_points(dice: int) -> Dist:
    """Destruction points from ``dice`` dice (Destruction, Démolisseur, never Suppressed)."""
    if not 0 <= dice <= 20:
        raise ValueError("0 to 20 dice")
    one = Dist.from_probs(
        {0: Fraction(DESTRUCTION_SUCCESS - 1, 6), 1: Fraction(7 - DESTRUCTION_SUCCESS, 6)}
    )
    total = Dist.constant(0)
    for _ in range(dice):
        total = total + one
    return total


# -- dispersion -------------------------------------------------------------------------------


def dispersion_odds(
    target: Intercase,
    directions: Sequence[tuple[int, int]] | None,
    distance: int,
    spotter: bool = False,
) -> dict[Intercase, Fraction]:
    """Where an indirect-fire template lands: faces 1-4 move it by ``distance`` intercases
    (1 fewer with a Sighum spotter [L1318-L1322]) in the direction printed for that face
    (``directions[face - 1]``, from the template's data); 5-6 on target. A template without a
    dispersion diagram (``None``) always lands on target [L1470-L1477]."""
    if directions is None:
        return {target: Fraction(1)}
    if len(directions) != 4:
        raise ValueError("one direction for each of the faces 1 to 4")
    step = max(0, distance - (1 if spotter else 0))
    out: dict[Intercase, Fraction] = {target: Fraction(2, 6)}
    for dx, dy in directions:
        spot = Intercase(target.x + dx * step, target.y + dy * step)
        out[spot] = out.get(spot, Fraction(0)) + Fraction(1, 6)
    return out


# -- armour save ------------------------------------------------------------------------------


class ArmourColour(StrEnum):
    YELLOW = "yellow"  # only with an Action card's armour-save Alternative Bonus
    GREEN = "green"  # automatic


def armour_save_odds(
    value: int,
    colour: ArmourColour,
    *,
    card_played: bool = False,
    piercing: bool = False,
    suppressed: int = 0,
    bonus: int = 0,
) -> Fraction | None:
    """P(the step losses are ignored), or None when no save may be tried."""
    if piercing or (colour is ArmourColour.YELLOW and not card_played):
        return None
    result = D6 + (bonus - SUPPRESSED_PENALTY * suppressed)
    return sum((p for r, p in result.items() if r >= value), Fraction(0))


# -- heavy-vehicle damage location ------------------------------------------------------------


class DamageMarker(StrEnum):
    LOCOMOTION = "locomotion"
    HULL = "hull"
    SECONDARY_WEAPON = "secondary_weapon"
    MAIN_WEAPON = "main_weapon"
    EXPLOSION = "explosion"


def damage_location_odds(
    damage_set: Mapping[int, DamageMarker], modifier: int = 0
) -> dict[str, Fraction]:
    """Exact odds of each marker of a damage set (faces 1..6 -> marker)."""
    if set(damage_set) != set(range(1, 7)):
        raise ValueError("a damage set names a marker for each face 1 to 6")
    return _odds(D6, lambda d: damage_set[damage_location(d, modifier)].value)


WEAPON_MARKERS = (DamageMarker.MAIN_WEAPON, DamageMarker.SECONDARY_WEAPON)


@dataclass(frozen=True)
class DamageFace:
    """What one face of a damage set places: a marker, and for a weapon marker the number of
    the weapon it hits (a vehicle with several main weapons [L688-L692])."""

    marker: DamageMarker
    number: int = 1

    def __str__(self) -> str:
        if self.marker in WEAPON_MARKERS:
            return f"{self.marker.value}_{self.number}"
        return self.marker.value


def damage_face_odds(faces: Sequence[DamageFace], modifier: int = 0) -> dict[str, Fraction]:
    """Exact odds of each marker a damage set places (``faces[0]`` for a result of 1), the
    location roll taking ``modifier`` (Perforant +1) and clamped to 1..6; weapon markers are
    named with their number (``main_weapon_2``)."""
    if len(faces) != 6:
        raise ValueError("a damage set names a marker for each result 1 to 6")
    return _odds(D6, lambda d: str(faces[damage_location(d, modifier) - 1]))


@dataclass(frozen=True)
class VehicleDamage:
    """The Damage markers a heavy vehicle carries (each with the number of the weapon it hit,
    1 for the others) and whether it is a wreck."""

    markers: tuple[DamageMarker, ...] = ()
    wreck: bool = False
    numbers: tuple[int, ...] = ()  # per marker: the weapon number (1 when not a weapon)

    def take(self, marker: DamageMarker, number: int = 1) -> VehicleDamage:
        """Add a marker: an Explosion, or a second marker of a kind, makes it a wreck
        [L693-L699]. The kind is the marker's type: a second main-weapon marker wrecks the
        vehicle whichever weapon number it names (rulings)."""
        if self.wreck:
            return self
        wreck = marker is DamageMarker.EXPLOSION or marker in self.markers
        numbers = self.numbers or (1,) * len(self.markers)
        return VehicleDamage((*self.markers, marker), wreck, (*numbers, number))

    @property
    def immobilised(self) -> bool:
        return DamageMarker.LOCOMOTION in self.markers

    def weapon_hit(self, marker: DamageMarker, number: int) -> bool:
        """Whether a weapon marker of this kind and number was placed."""
        numbers = self.numbers or (1,) * len(self.markers)
        return any(m is marker and n == number for m, n in zip(self.markers, numbers, strict=True))


def hull_suppressed(grot_rigger: bool = False) -> int:
    """Suppressed markers a Hull marker also places: 2, or 1 with a Grot Rigger [L2589-L2592]."""
    return 1 if grot_rigger else 2


# -- steps, Hit Points, Breaking Points -------------------------------------------------------


def absorb_steps(steps: int, hit_points: int) -> tuple[int, int]:
    """(steps still taken, Hit Point markers left): one marker cancels one step; a Coup Double
    (2 steps) needs two [L2243-L2255]."""
    used = min(steps, hit_points)
    return steps - used, hit_points - used


def tile_broken(destroyed: int, breaking_point: int = 1) -> bool:
    """A group is broken when its destroyed counters reach its Breaking Point (1 when none is
    printed) [L639-L647, L2318-L2325]."""
    return destroyed >= breaking_point


def structure_destroyed(points: int, value: int) -> bool:
    """A structure (a building, a wreck) falls at its Destruction value [L1186-L1194]."""
    return points >= value


def crushing_points(wreck_squares_entered: int) -> int:
    """Destruction points a heavy vehicle deals to a wreck it drives into: 1, or 2 when it
    crosses several of the wreck's squares in one Movement Action [L368-L376]."""
    if wreck_squares_entered <= 0:
        return 0
    return 1 if wreck_squares_entered == 1 else 2
