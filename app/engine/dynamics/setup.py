"""What a Dynamics battle starts from: a PEN battle set-up plus what the common turn needs
(rules/dynamics.md §3.1, §6.1): the pilots' Initiative for non-walker vehicles [L197], the
transports' passengers [L223], the escorts an independent character may delay to [L219], the
attacker/defender whose role would begin the battle (+2 on advantage tests) [L140], [L161] and
the optional token-supply check (5 tokens, one of each order, per 250 points) [L47]."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from app.engine.pen.battle.setup import SEATS, BattleSetup, UnitSpec, profile_of
from app.engine.pen.names import Rule
from app.engine.pen.profiles import Unit

__all__ = ["DynamicsSetup", "tokens_needed"]

BLOCK_POINTS = 250


def tokens_needed(points: int) -> int:
    """Tokens of each order type a player needs: one per started block of 250 pts [L47-L49]."""
    return max(1, -(-points // BLOCK_POINTS))


@dataclass(frozen=True, slots=True)
class DynamicsSetup:
    battle: BattleSetup
    pilots: Mapping[str, int] = field(default_factory=dict)  # seat -> pilot's Initiative
    transports: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # unit -> passengers
    escorts: Mapping[str, str] = field(default_factory=dict)  # IC -> the unit it goes with
    plus_two: str = ""  # the seat whose role would begin the battle ("" when none) [L140]
    tokens_per_type: Mapping[str, int] | None = None  # seat -> tokens of each type, if checked

    def unit(self, unit: str) -> UnitSpec:
        for army in self.battle.armies:
            for u in army.units:
                if u.id == unit:
                    return u
        raise KeyError(unit)

    def seat_of(self, unit: str) -> str:
        return next(a.seat for a in self.battle.armies for u in a.units if u.id == unit)

    def is_ic(self, unit: str) -> bool:
        profile = profile_of(self.unit(unit))
        return any(str(r.rule) == Rule.INDEPENDENT_CHARACTER for r in profile.rules)

    def initiative(self, unit: str) -> int:
        """The unmodified profile Initiative [L191]; the pilot's for a non-walker vehicle [L197]."""
        spec = self.unit(unit)
        profile = profile_of(spec)
        if isinstance(profile, Unit):
            return profile.initiative or 1
        types = spec.profile.get("types", ()) if isinstance(spec.profile, Mapping) else ()
        if isinstance(types, list | tuple) and "walker" in types:
            raw = spec.profile.get("initiative") if isinstance(spec.profile, Mapping) else None
            if isinstance(raw, int):
                return raw
        return self.pilots.get(self.seat_of(unit), 3)

    def problems(self) -> list[tuple[str, str]]:
        out = list(self.battle.problems())
        if out:
            return out
        ids = {u.id for a in self.battle.armies for u in a.units}
        for seat, value in self.pilots.items():
            if seat not in SEATS or not 1 <= value <= 10:
                out.append((f"pilots.{seat}", "a seat A or B and an Initiative from 1 to 10"))
        for transport, passengers in self.transports.items():
            if transport not in ids or not self.unit(transport).is_vehicle:
                out.append((f"transports.{transport}", "not a vehicle of the armies"))
                continue
            for p in passengers:
                if p not in ids or self.seat_of(p) != self.seat_of(transport) or p == transport:
                    out.append((f"transports.{transport}", f"{p} is not a squad of its army"))
        for ic, escort in self.escorts.items():
            if ic not in ids or escort not in ids or not self.is_ic(ic):
                out.append((f"escorts.{ic}", "an independent character and a squad of the armies"))
            elif self.seat_of(ic) != self.seat_of(escort) or self.is_ic(escort):
                out.append((f"escorts.{ic}", "an escort is a squad of its army, not a character"))
        if self.plus_two not in ("", *SEATS):
            out.append(("plus_two", "seat A, B or empty"))
        if self.tokens_per_type is not None:
            for army in self.battle.armies:
                have = self.tokens_per_type.get(army.seat, 0)
                need = tokens_needed(army.points)
                if have < need:
                    out.append(
                        (
                            f"tokens_per_type.{army.seat}",
                            f"{have} tokens of each order for {army.points} pts: "
                            f"at least {need} needed (5 per 250 pts) [L47]",
                        )
                    )
        return out
