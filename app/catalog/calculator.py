"""Links that open the calculator with a catalogue's weapon profiles preloaded.

They sit beside the catalogue's profiles because they need nothing else: the catalogue page
offers one per weapon profile, and the army builder (``app.armies.loadout``) builds on them for
a whole unit. The query parameters are the ones the calculator documents (``app.combat.forms``):
``system``, then for the 10th edition ``w<i>.<field>`` per weapon row (the target is left to the
calculator's default). See docs/api-combat.md, "Linking to the calculator".
"""

from __future__ import annotations

from urllib.parse import urlencode

from app.engine.wh40k10e.army import WeaponProfile
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
