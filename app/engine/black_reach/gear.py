"""What a unit's permanent equipment changes on the face it shows (note §2.5-§2.6, §3.9;
rulings 126-128): the abilities its Equipment and Personalisation options give, a DV set
(Combat Shield [L2646-L2647]) or raised (an armour [L2581-L2582]), an MV raised (Red Paint
Job [L2598-L2600]) and the armour saves they print ('Eavy Armour, Iron Halo, Kustom Force
Field [L2656-L2679]).

The markers used once (Ammo, Camo Cloak, Rokkit Hammers...) are not here: they are readied
before an action (:mod:`.battle.equipment`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.engine.black_reach.forces import (
    AbilityRef,
    ArmourSave,
    Counter,
    Equipment,
    Face,
    FaceKind,
)

__all__ = ["Gear", "geared", "order_tokens"]


@dataclass(frozen=True, slots=True)
class Gear:
    """The sum of a unit's permanent gifts: abilities, DV set or raised, MV raised, saves."""

    grants: tuple[AbilityRef, ...] = ()
    dv: int | None = None  # the DV it is set to (Combat Shield); None: the face's own
    dv_bonus: int = 0
    mv_bonus: int = 0
    saves: tuple[ArmourSave, ...] = ()
    options: tuple[str, ...] = ()  # the options that give them (their ids)
    hull_suppressed: int | None = None  # Grot Rigger: a Hull marker's Suppressed markers

    def __bool__(self) -> bool:
        return bool(self.grants or self.dv is not None or self.dv_bonus or self.mv_bonus)

    def add(self, option: str, e: Equipment) -> Gear:
        dv = e.dv if e.dv is None or self.dv is None else max(e.dv, self.dv)
        return Gear(
            (*self.grants, *e.grants),
            self.dv if e.dv is None else dv,
            self.dv_bonus + e.dv_bonus,
            self.mv_bonus + e.mv_bonus,
            (*self.saves, *((e.armour_save,) if e.armour_save is not None else ())),
            (*self.options, option),
            _fewer(self.hull_suppressed, e.hull_suppressed),
        )


def _fewer(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _merged(own: AbilityRef | None, gift: AbilityRef) -> AbilityRef:
    """A gift of an ability the face prints already: the larger number when both have one
    (Relic Blade's Assaut (+3) on a face with Assaut (+1)), else the gift's."""
    if own is None:
        return gift
    if isinstance(own.param, int) and isinstance(gift.param, int):
        return own if own.param >= gift.param else gift
    return gift


def geared(face: Face, gear: Gear | None) -> Face:
    """``face`` with the gifts of ``gear``: its abilities (a gift of one it prints merges,
    :func:`_merged`), its DV (set, then raised) and its MV raised (an MV "X" never moves
    [L302-L314]). A wreck is terrain: nothing changes it."""
    if gear is None or not gear or face.kind is FaceKind.WRECK:
        return face
    abilities = list(face.abilities)
    for gift in gear.grants:
        at = next((i for i, a in enumerate(abilities) if a.ability is gift.ability), None)
        if at is None:
            abilities.append(gift)
        else:
            abilities[at] = _merged(abilities[at], gift)
    dv = (face.dv if gear.dv is None else gear.dv) + gear.dv_bonus
    mv = None if face.mv is None else face.mv + gear.mv_bonus
    return replace(face, abilities=tuple(abilities), dv=dv, mv=mv)


def order_tokens(counter: Counter, gear: Gear | None, face: FaceKind | None = None) -> int:
    """Numbered Order tokens the unit gives on ``face`` (its first when None): those of the
    face it shows, its gifts included, so an Ordre Personnel an option grants (Machine Spirit)
    gives its token as a printed one does (rulings 146, 151) [L1926-L1942]. The army's count
    before the battle and the match's Order phase both read it."""
    f = counter.face(face) if face else counter.first_face
    return geared(f, gear).order_tokens() if f is not None else 0
