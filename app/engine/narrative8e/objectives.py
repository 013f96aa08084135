"""Mission objectives and stratagems: sabotage attempts, the spy of Rescue, and the CP ledger
of mission stratagems (variable costs, once per battle, the Battle-forged gate).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from app.engine.narrative8e.pack import CostKind, Side, Stratagem
from app.engine.narrative8e.setup import NarrativeError
from app.engine.roller import Roller

__all__ = [
    "MAX_HIDING_PLACES",
    "Sabotage",
    "SpentStratagem",
    "SpyHunt",
    "SpySearch",
    "StratagemLedger",
]

MAX_HIDING_PLACES = 12


# -- sabotage -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sabotage:
    """Sabotage attempts [L435-L439]: an Attacker unit (not a VEHICLE or MONSTER) within 3" of
    the Objective at the end of one of its turns may attempt, once per battle (twice with
    *Extra Explosives* [L463], never twice in one turn). The first attempt raises the alarm at
    the end of that turn (see :meth:`~app.engine.narrative8e.battle.Alarm.at_end_of_turn`)."""

    attempts: tuple[tuple[str, int], ...] = ()
    """(unit, battle round) of every attempt, in order."""
    extra: tuple[str, ...] = ()
    """Units given one more attempt by *Extra Explosives*."""

    @property
    def count(self) -> int:
        return len(self.attempts)

    def allowed(self, unit: str) -> int:
        return 1 + self.extra.count(unit)

    def attempt(
        self,
        unit: str,
        round_: int,
        *,
        distance: float,
        keywords: Iterable[str] = (),
        objective_range: float = 3.0,
        excluded: Iterable[str] = ("VEHICLE", "MONSTER"),
    ) -> Sabotage:
        kw = {k.upper() for k in keywords}
        bad = sorted(kw & {e.upper() for e in excluded})
        if bad:
            raise NarrativeError(f"{unit}: a {bad[0]} cannot attempt a sabotage")
        if distance > objective_range:
            raise NarrativeError(f'{unit}: more than {objective_range:g}" from the Objective')
        mine = [r for u, r in self.attempts if u == unit]
        if round_ in mine:
            raise NarrativeError(f"{unit}: one sabotage attempt per turn")
        if len(mine) >= self.allowed(unit):
            raise NarrativeError(f"{unit}: no sabotage attempt left this battle")
        return replace(self, attempts=(*self.attempts, (unit, round_)))

    def extra_explosives(self, unit: str) -> Sabotage:
        if not any(u == unit for u, _ in self.attempts):
            raise NarrativeError(f"{unit}: Extra Explosives follows a sabotage attempt")
        return replace(self, extra=(*self.extra, unit))


# -- the spy of Rescue ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpySearch:
    place: str
    die: int | None
    found: bool
    last_place: bool = False
    scan: bool = False


@dataclass(frozen=True, slots=True)
class SpyHunt:
    """Six potential hiding places chosen in turn from the Attacker [L497]. The first time an
    Attacker model ends a move within 3" of one, a D6: on a 6, or if it is the last place not
    searched, the spy is found there [L519]. *Distress Beacon Scan* (a model within 12" of a
    place not searched, end of the Movement phase) finds it on a 6 [L545]; the place scanned is
    searched either way (rulings A23). Finding the spy raises the alarm at the end of that turn
    [L521]. If the spy cannot be placed it dies and the Attacker loses at once [L519]."""

    places: tuple[str, ...]
    searched: tuple[str, ...] = ()
    found_at: str | None = None
    spy_alive: bool = True
    placement_failed: bool = False

    def __post_init__(self) -> None:
        if not 1 <= len(self.places) <= MAX_HIDING_PLACES:
            raise NarrativeError(f"1 to {MAX_HIDING_PLACES} hiding places")
        if len(set(self.places)) != len(self.places):
            raise NarrativeError("hiding places must be distinct")

    @property
    def found(self) -> bool:
        return self.found_at is not None

    def _check(self, place: str) -> None:
        if self.found:
            raise NarrativeError("the spy is already found")
        if place not in self.places:
            raise NarrativeError(f"no hiding place {place!r}")
        if place in self.searched:
            raise NarrativeError(f"{place!r} is already searched")

    def search(self, place: str, roller: Roller, found_on: int = 6) -> tuple[SpyHunt, SpySearch]:
        self._check(place)
        last = len(self.searched) == len(self.places) - 1
        die = roller.d6(f"search {place}", stage="spy")
        found = last or die >= found_on
        state = replace(self, searched=(*self.searched, place), found_at=place if found else None)
        return state, SpySearch(place, die, found, last_place=last)

    def beacon_scan(
        self, place: str, roller: Roller, found_on: int = 6
    ) -> tuple[SpyHunt, SpySearch]:
        self._check(place)
        die = roller.d6(f"beacon scan {place}", stage="spy")
        found = die >= found_on
        state = replace(self, searched=(*self.searched, place), found_at=place if found else None)
        return state, SpySearch(place, die, found, scan=True)

    def placement_impossible(self) -> SpyHunt:
        if not self.found:
            raise NarrativeError("the spy is not found yet")
        return replace(self, spy_alive=False, placement_failed=True)

    def spy_killed(self) -> SpyHunt:
        if not self.found:
            raise NarrativeError("the spy is not found yet")
        return replace(self, spy_alive=False)


# -- mission stratagems and CP --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpentStratagem:
    stratagem: str
    side: Side
    cp: int
    round: int
    phase: str = ""
    target: str = ""


@dataclass(frozen=True, slots=True)
class StratagemLedger:
    """The CP of both sides and every stratagem spent (mission stratagems need a Battle-forged
    army [L125]; combat-zone and expansion stratagems do not (rulings A40)). The CP pools come
    from the 10th-edition Command phase (rulings A39)."""

    cp: tuple[int, int]
    """(Attacker, Defender)."""
    spent: tuple[SpentStratagem, ...] = ()

    def available(self, side: Side) -> int:
        return self.cp[0] if side is Side.ATTACKER else self.cp[1]

    def gain(self, side: Side, amount: int) -> StratagemLedger:
        if amount < 0:
            raise NarrativeError("a CP gain cannot be negative")
        a, d = self.cp
        return replace(self, cp=(a + amount, d) if side is Side.ATTACKER else (a, d + amount))

    def use(
        self,
        stratagem: Stratagem,
        side: Side,
        *,
        cp: int | None = None,
        round_: int,
        phase: str = "",
        target: str = "",
        battle_forged: bool,
        mission_scope: bool = True,
    ) -> StratagemLedger:
        """Spend a stratagem: the side must be its own (or ``both``), the army Battle-forged
        for a mission stratagem, the CP allowed by its cost (``cp`` for a variable or tiered
        cost), affordable, and a once-per-battle stratagem unused by that side."""
        if side is Side.BOTH:
            raise NarrativeError("a stratagem is used by the Attacker or the Defender")
        if stratagem.side is not Side.BOTH and stratagem.side is not side:
            raise NarrativeError(f"{stratagem.id} is a {stratagem.side.value} stratagem")
        if mission_scope and not battle_forged:
            raise NarrativeError(f"{stratagem.id}: mission stratagems need a Battle-forged army")
        cost = stratagem.cost
        amount = cost.cp if cp is None and cost.kind is CostKind.FIXED else cp
        if amount is None:
            raise NarrativeError(
                f"{stratagem.id} costs {cost.min} to {cost.max} CP: say how many are spent"
            )
        if not cost.allows(amount):
            want = str(cost.cp) if cost.kind is CostKind.FIXED else f"{cost.min} to {cost.max}"
            raise NarrativeError(f"{stratagem.id} costs {want} CP, not {amount}")
        if amount > self.available(side):
            raise NarrativeError(
                f"{stratagem.id} costs {amount} CP; {side.value} has {self.available(side)}"
            )
        if stratagem.once_per_battle and any(
            s.stratagem == stratagem.id and s.side is side for s in self.spent
        ):
            raise NarrativeError(f"{stratagem.id} is used once per battle")
        a, d = self.cp
        pools = (a - amount, d) if side is Side.ATTACKER else (a, d - amount)
        entry = SpentStratagem(stratagem.id, side, amount, round_, phase, target)
        return replace(self, cp=pools, spent=(*self.spent, entry))

    def cp_spent_on(self, stratagem_id: str, side: Side) -> int:
        return sum(s.cp for s in self.spent if s.stratagem == stratagem_id and s.side is side)
