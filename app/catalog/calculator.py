"""Links that open the calculator with a catalogue's weapon profiles preloaded.

They sit beside the catalogue's profiles because they need nothing else: the catalogue page
offers one per weapon profile, and the army builder (``app.armies.loadout``) builds on them for
a whole unit. The query parameters are the ones the calculator documents (``app.combat.forms``):
``system``, then for the 10th edition ``w<i>.<field>`` per weapon row (the target is left to the
calculator's default). See docs/api-combat.md, "Linking to the calculator". A whole unit
(:func:`unit_query`) makes one attack: its ranged or its melee weapons, one profile each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit

from app.engine.wh40k10e.army import Weapon, WeaponProfile
from app.engine.wh40k10e.profiles import MAX_ATTACK_ENTRIES

CALCULATOR = "/calculator"


def _weapon_row(i: int, profile: WeaponProfile, models: int) -> list[tuple[str, str]] | None:
    weapon = profile.combat_weapon()
    if weapon is None:
        return None
    skill = weapon["skill"]
    return [
        (f"w{i}.models", str(models)),
        (f"w{i}.name", str(weapon["name"])),
        (f"w{i}.kind", str(weapon["kind"])),
        (f"w{i}.attacks", str(weapon["attacks"])),
        (f"w{i}.skill", "" if skill is None else f"{skill}+"),
        (f"w{i}.strength", str(weapon["strength"])),
        (f"w{i}.ap", str(weapon["ap"])),
        (f"w{i}.damage", str(weapon["damage"])),
        (f"w{i}.abilities", ", ".join(weapon["abilities"])),
    ]


def calculator_url(weapons: list[tuple[WeaponProfile, int]]) -> str | None:
    """The calculator with these weapon profiles (each on that many models) preloaded, ranged
    first, at most as many rows as the calculator takes; ``None`` if none can be expressed."""
    ordered = sorted(weapons, key=lambda pw: pw[0].kind.value != "ranged")
    query: list[tuple[str, str]] = [("system", "wh40k-10e")]
    rows = 0
    for profile, models in ordered:
        if rows >= MAX_ATTACK_ENTRIES:
            break
        row = _weapon_row(rows, profile, max(models, 1))
        if row is not None:
            query.extend(row)
            rows += 1
    if rows == 0:
        return None
    # No target: the calculator starts from its default one, which the user changes there.
    return f"{CALCULATOR}?{urlencode(query)}"


def profile_calculator_url(profile: WeaponProfile, models: int = 1) -> str | None:
    return calculator_url([(profile, models)])


# -- a whole unit: shooting or melee, one profile per weapon ----------------------------------

KINDS = ("ranged", "melee")


def unit_kinds(weapons: Sequence[tuple[Weapon, int]]) -> list[str]:
    """The kinds of attack the unit can make (``ranged`` first): a player shoots or fights,
    never both in one attack."""
    present = {p.kind.value for w, _n in weapons for p in w.profiles}
    return [k for k in KINDS if k in present]


def profile_label(weapon: Weapon, profile: WeaponProfile) -> str:
    """A profile's own part of its name ("supercharge" of "Plasma incinerator - supercharge")."""
    if profile.name.startswith(weapon.name):
        return profile.name[len(weapon.name) :].strip(" -–—:") or profile.name
    return profile.name


def profile_choices(weapons: Sequence[tuple[Weapon, int]]) -> list[tuple[int, Weapon]]:
    """The weapons of a loadout with several profiles (standard or supercharge, strike or
    sweep), each with its index in the loadout: the player picks one."""
    return [(i, w) for i, (w, _n) in enumerate(weapons) if len(w.profiles) > 1]


def unit_profiles(
    weapons: Sequence[tuple[Weapon, int]],
    kind: str = "ranged",
    picks: Mapping[int, int] | None = None,
) -> list[tuple[WeaponProfile, int]]:
    """One attack of a unit: the weapons of one kind (``ranged`` by default, the other when it
    has none), one profile each (the one ``picks`` names by loadout index, else the weapon's
    first of that kind), on the loadout's models."""
    kinds = unit_kinds(weapons)
    if kind not in kinds:
        kind = kinds[0] if kinds else kind
    chosen: list[tuple[WeaponProfile, int]] = []
    for i, (weapon, models) in enumerate(weapons):
        of_kind = [p for p in weapon.profiles if p.kind.value == kind]
        if not of_kind:
            continue
        pick = (picks or {}).get(i)
        wanted = (
            weapon.profiles[pick] if pick is not None and 0 <= pick < len(weapon.profiles) else None
        )
        chosen.append((wanted if wanted in of_kind else of_kind[0], models))
    return chosen


def unit_query(
    weapons: Sequence[tuple[Weapon, int]],
    kind: str = "ranged",
    picks: Mapping[int, int] | None = None,
) -> list[tuple[str, str]]:
    """The calculator's weapon rows for one attack of a unit (see :func:`unit_profiles`),
    without ``system``; empty when no profile can be expressed."""
    url = calculator_url(unit_profiles(weapons, kind, picks))
    if url is None:
        return []
    return [(k, v) for k, v in parse_qsl(urlsplit(url).query) if k != "system"]
