"""The other rolls of a PEN game as exact probabilities and distributions (note §5.10).

Morale and Leadership tests (2D6, double 1 passes, double 6 fails [L121-L122]), characteristic
tests (D6 <= value, 1 passes, 6 fails [L118-L123]), reserves [L860-L865], dawn [L950-L953],
game length [L826], scatter [L534], [L651], [L888-L889], [L467], outflank [L875-L878], the
sweeping-advance / Hit & Run roll-off [L416], [L1258], and the small tests of §5.10.
Each roll that the live resolution also makes is written once as a dice procedure.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from app.engine.distributions import Dist
from app.engine.pen import tables
from app.engine.pen.procedures import Dice, enumerate_outcomes
from app.engine.pen.tables import OutflankEdge

__all__ = [
    "blast_scatter",
    "bomb_scatter",
    "characteristic_test",
    "dawn_probability",
    "dawn_round",
    "deep_strike_scatter",
    "game_length",
    "ld_test",
    "ld_test_procedure",
    "morale_test",
    "outflank",
    "reserve_arrival",
    "reserve_arrival_turn",
    "roll_off_procedure",
    "sweep_caught",
    "teleport_scatter",
]


def ld_test_procedure(
    dice: Dice, leadership: int | None, malus: int = 0, label: str = "Ld"
) -> bool:
    """A Leadership test: 2D6 <= Ld - malus; double 1 always passes, double 6 always fails
    [L121-L122]. A model without Ld passes [L123]."""
    if leadership is None:
        return True
    a = dice.roll(6, f"{label} test")
    b = dice.roll(6, f"{label} test")
    if a == b == 1:
        passed = True
    elif a == b == 6:
        passed = False
    else:
        passed = a + b <= leadership - malus
    dice.annotate(modifier=malus, outcome="passed" if passed else "failed")
    return passed


@cache
def ld_test(leadership: int | None, malus: int = 0) -> Fraction:
    """P(pass) of a Leadership test with a malus (a positive number makes it harder)."""
    out = enumerate_outcomes(lambda dice: ld_test_procedure(dice, leadership, malus))
    return out.get(True, Fraction(0))


def morale_test(
    leadership: int | None,
    malus: int = 0,
    *,
    fearless: bool = False,
    stubborn: bool = False,
) -> Fraction:
    """P(pass) of a morale test: the squad's highest Ld [L929]; Sans peur passes [L455];
    Obstiné ignores Ld maluses [L434]."""
    if fearless:
        return Fraction(1)
    return ld_test(leadership, 0 if stubborn else malus)


def characteristic_test(value: int | None, malus: int = 0) -> Fraction:
    """P(pass) of a characteristic test: D6 <= value - malus; 1 passes, 6 fails [L118-L123]."""
    if value is None:
        return Fraction(1)  # no such characteristic: automatic pass [L123]
    target = tables.clamp_characteristic(value - malus)
    passing = sum(1 for face in range(1, 7) if face == 1 or (face != 6 and face <= target))
    return Fraction(passing, 6)


def reserve_arrival(turn: int) -> Fraction:
    """P(a reserve squad is available at the start of your ``turn``) [L860-L865]."""
    target = tables.reserve_target(turn)
    return Fraction(1) if target is None else Fraction(7 - target, 6)


def reserve_arrival_turn() -> Dist:
    """Turn on which a squad rolled for every turn arrives: 1..5 (5 = automatic) [L860-L865]."""
    weights: dict[int, Fraction] = {}
    waiting = Fraction(1)
    for turn in range(1, 6):
        p = reserve_arrival(turn)
        weights[turn] = waiting * p
        waiting *= 1 - p
    return Dist.from_probs(weights)


def dawn_probability(game_round: int) -> Fraction:
    """P(day breaks at the start of ``game_round``) [L950-L953]."""
    return Fraction(7 - tables.dawn_target(game_round), 6)


def dawn_round(last_round: int = 7) -> Dist:
    """Round at whose start day breaks; ``last_round + 1`` if the night lasts the whole game."""
    weights: dict[int, Fraction] = {}
    night = Fraction(1)
    for r in range(1, last_round + 1):
        p = dawn_probability(r)
        weights[r] = night * p
        night *= 1 - p
    weights[last_round + 1] = night
    return Dist.from_probs(weights)


def game_length() -> Dist:
    """Last game round: end of 5 continues on 3+, end of 6 on 5+, ends after 7 [L826]."""
    weights: dict[int, Fraction] = {}
    going = Fraction(1)
    for r in (5, 6, 7):
        target = tables.game_continues_target(r)
        cont = Fraction(0) if target is None else Fraction(7 - target, 6)
        weights[r] = going * (1 - cont)
        going *= cont
    return Dist.from_probs(weights)


def outflank() -> dict[OutflankEdge, Fraction]:
    """Outflank edge: 1-2 left, 3-4 right, 5-6 the chosen edge [L875-L878]."""
    out: dict[OutflankEdge, Fraction] = {}
    for face in range(1, 7):
        edge = tables.outflank_edge(face)
        out[edge] = out.get(edge, Fraction(0)) + Fraction(1, 6)
    return out


_ARROW = Fraction(4, 6)  # scatter die: 2 "hit" faces, 4 arrows [L1474]


def deep_strike_scatter() -> Dist:
    """Deep strike scatter distance in inches: a hit face does not scatter, an arrow moves
    2D6 [L888-L889], [L892]."""
    return Dist.mixture([(1 - _ARROW, Dist.constant(0)), (_ARROW, Dist.die(6).repeat(2))])


def blast_scatter(shooter_within_12: bool = False) -> Dist:
    """A missed blast always moves (a hit face uses its small arrow): 2D6, or 1D6 when the
    shooter is 12 ps or less away [L534]."""
    return Dist.die(6) if shooter_within_12 else Dist.die(6).repeat(2)


def bomb_scatter() -> Dist:
    """Bombe aérienne template scatter: 1D6 [L651]."""
    return Dist.die(6)


def teleport_scatter(distance: int, sees_destination: bool = True) -> Dist:
    """Téléportation: none up to 18 ps, 1D6 beyond, 2D6 beyond 36 or without sight of the
    destination [L467]; a hit face of the scatter die does not scatter (as deep strike)."""
    if not sees_destination or distance > 36:
        dice = Dist.die(6).repeat(2)
    elif distance > 18:
        dice = Dist.die(6)
    else:
        return Dist.constant(0)
    return Dist.mixture([(1 - _ARROW, Dist.constant(0)), (_ARROW, dice)])


def roll_off_procedure(dice: Dice, pursuer_i: int, fleeing_i: int, label: str) -> bool:
    """Sweeping advance / Hit & Run: each side 1D6 + majority I; the fleeing squad is caught
    when its total is <= the pursuers' [L1258], [L416]."""
    pursuer = dice.roll(6, f"{label} (pursuer)") + pursuer_i
    fleeing = dice.roll(6, f"{label} (fleeing)") + fleeing_i
    caught = fleeing <= pursuer
    dice.annotate(modifier=fleeing_i, outcome="caught" if caught else "escaped")
    return caught


@cache
def sweep_caught(pursuer_i: int, fleeing_i: int) -> Fraction:
    """P(the retreating squad is caught by a sweeping advance) [L1258]."""
    out = enumerate_outcomes(lambda dice: roll_off_procedure(dice, pursuer_i, fleeing_i, "sweep"))
    return out.get(True, Fraction(0))


def first_player_win() -> Fraction:
    """P(a player wins the roll-off for the first turn): ties are re-rolled [L832]."""
    return Fraction(1, 2)


def psychic_test(leadership: int) -> tuple[Fraction, Fraction]:
    """(P(pass), P(Perils of the Warp)) of a psychic test: an Ld test, double 6 = perils
    [L442-L444]."""
    return ld_test(leadership), Fraction(1, 36)


def dangerous_terrain(lost_a_wound: bool = False) -> Fraction:
    """P(a dangerous terrain test fails): a 1 on 1D6 [L728]; the lowest of 2D6 after an
    accident by a model that lost a wound [L1158]."""
    return Fraction(11, 36) if lost_a_wound else Fraction(1, 6)


def d6_at_least(target: int) -> Fraction:
    """P(1D6 >= target), e.g. overheat / jam on X+ [L694], regeneration on X+ [L453]."""
    if target <= 1:
        return Fraction(1)
    if target > 6:
        return Fraction(0)
    return Fraction(7 - target, 6)
