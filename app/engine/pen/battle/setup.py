"""What a PEN battle starts from: the two armies, their squads and the victory conditions.

A squad's ``profile`` is the unit (or vehicle) object of the PEN combat contract
(:func:`app.engine.pen.request_from_dict`) without ``models``; its ``weapons`` are named weapon
objects of the same contract, and ``melee`` its close-combat weapon (a plain close-combat
weapon when absent). The battle builds every attack from them and from the tracked state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.engine.errors import ProfileError
from app.engine.match.codec import RawJson
from app.engine.pen.profiles import Unit, Vehicle
from app.engine.pen.requests import request_from_dict

__all__ = ["SEATS", "ArmySpec", "BattleSetup", "UnitSpec", "WeaponSpec", "other", "profile_of"]

SEATS = ("A", "B")
MAX_UNITS = 40
MAX_MODELS = 100


def other(seat: str) -> str:
    return "B" if seat == "A" else "A"


@dataclass(frozen=True, slots=True)
class WeaponSpec:
    name: str
    profile: RawJson


@dataclass(frozen=True, slots=True)
class UnitSpec:
    id: str
    name: str
    points: int
    models: int
    profile: RawJson
    weapons: tuple[WeaponSpec, ...] = ()
    melee: RawJson = None
    troops: bool = False  # a Troops choice: only enemy Troops contest what it holds [L815]
    capacity: int = 0  # a transport: how many models it carries [L290-L293]
    # a transport: how many carried models may shoot from it [L295] (an open-topped one:
    # all of them [L315], whatever this says)
    fire_points: int = 0

    @property
    def is_vehicle(self) -> bool:
        return isinstance(self.profile, Mapping) and "armour" in self.profile

    def weapon(self, name: str) -> WeaponSpec | None:
        return next((w for w in self.weapons if w.name == name), None)


@dataclass(frozen=True, slots=True)
class ArmySpec:
    seat: str
    name: str
    units: tuple[UnitSpec, ...]

    @property
    def points(self) -> int:
        return sum(u.points for u in self.units)


@dataclass(frozen=True, slots=True)
class BattleSetup:
    """The armies and the victory conditions of §3.2: ``objectives`` markers (controlled
    within 2 ps [L809]) and ``zones`` (8 ps [L811]), each worth X = points / 10 [L821];
    destroyed squads give their cost, half-strength squads and half-wrecked vehicles half
    [L818-L820] when ``kill_points``; a difference below X is a draw [L822]."""

    armies: tuple[ArmySpec, ...]
    points_limit: int
    objectives: int = 2
    zones: int = 0
    kill_points: bool = True
    alternation: bool = False  # the optional alternation mode of §3.5 [L836-L846]
    # both players confirm the objectives reported before the battle ends (pen rulings B18)
    confirm_result: bool = False
    # the seed's moves by unit type [L1062-L1077] and no rapid move after "Mobilité réduite"
    # [L1444] (pen rulings B37); None (a log recorded before) keeps the flat limits it was
    # played with: 6/12 ps, a vehicle 12/36. Creating a battle records True unless told False.
    seed_moves: bool | None = None
    # the first-turn protection in the classic and alternation turns [L1337] (pen rulings
    # B8): None (a log recorded before) shoots at the targets' real moves, as it was played.
    # Creating a battle records True unless told False.
    first_turn_protection: bool | None = None

    def army(self, seat: str) -> ArmySpec:
        return next(a for a in self.armies if a.seat == seat)

    @property
    def objective_value(self) -> int:
        return self.points_limit // 10

    def problems(self) -> list[tuple[str, str]]:
        """Every problem of the set-up at once: (field, message)."""
        out: list[tuple[str, str]] = []
        if sorted(a.seat for a in self.armies) != list(SEATS):
            out.append(("armies", "exactly one army per seat A and B"))
        if not 1 <= self.points_limit <= 100_000:
            out.append(("points_limit", "must be between 1 and 100000"))
        if not 0 <= self.objectives <= 10 or not 0 <= self.zones <= 10:
            out.append(("objectives", "between 0 and 10 objectives and zones"))
        ids: set[str] = set()
        for army in self.armies:
            where = f"armies.{army.seat}"
            if not 1 <= len(army.units) <= MAX_UNITS:
                out.append((where, f"1 to {MAX_UNITS} squads"))
            if army.points > self.points_limit:
                out.append((where, f"{army.points} pts is over the limit of {self.points_limit}"))
            for u in army.units:
                at = f"{where}.{u.id}"
                if not u.id or u.id in ids:
                    out.append((at, "squad ids must be unique and non-empty"))
                ids.add(u.id)
                if not 1 <= u.models <= MAX_MODELS or u.points < 0:
                    out.append((at, f"1 to {MAX_MODELS} models, points >= 0"))
                    continue
                try:
                    profile_of(u)
                except ProfileError as err:
                    out.extend((f"{at}.{path}", msg) for path, msg in err.errors)
                if not 0 <= u.capacity <= MAX_MODELS or (u.capacity and not u.is_vehicle):
                    out.append((at, f"capacity: 0 to {MAX_MODELS}, and only for a vehicle"))
                if not 0 <= u.fire_points <= max(u.capacity, 0):
                    out.append((at, "fire_points: 0 to the transport's capacity [L295]"))
                if len({w.name for w in u.weapons}) != len(u.weapons):
                    out.append((at, "weapon names must be unique in a squad"))
        return out


_PROBE_WEAPON = {"kind": "ranged", "type": "assault", "shots": 1, "strength": 4, "ap": 5}
_PROBE_UNIT = {"models": 1, "bs": 4, "ws": 4, "strength": 4, "toughness": 4}


def profile_of(spec: UnitSpec, models: int | None = None) -> Unit | Vehicle:
    """The squad's typed profile (validated by the PEN request parser)."""
    raw = spec.profile
    if not isinstance(raw, Mapping):
        raise ProfileError("profile", "must be an object")
    body = dict(raw)
    body["models"] = spec.models if models is None else models
    request = request_from_dict({"attacker": _PROBE_UNIT, "weapon": _PROBE_WEAPON, "target": body})
    return request.target
