"""The PEN calculator in the reader's language: every key, value, step text and die label the
PEN engine writes (English, ``app/engine/pen/analysis.py`` and ``live.py``) read back here and
rebuilt from a translatable message.

Keys (stages, totals, the sections of "More detail") are labelled by :data:`LABELS`, a mapping
that also answers the keys built from others (``counter_hits``: the strike back's hits, the
``wound AP2`` rows of the saves table). A text of an unknown shape goes through
:func:`app.combat.present.untranslated` (shown as written, and a test failure).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

from app.combat.present import Label, translate, untranslated
from app.core.i18n import gettext as _
from app.core.i18n import lazy, ngettext, pgettext


def lazy_pgettext(context: str, message: str) -> tuple[str, str]:
    return (context, message)


# every key of the PEN engine's stages, totals and extra sections -> msgid
_KEYS: dict[str, Label] = {
    # stages and totals
    "attacks": lazy("Attacks"),
    "hits": lazy("Hits"),
    "hits_after_cover": lazy("Hits after cover saves"),
    "wounds": lazy("Wounds"),
    "mortelle_wounds": lazy("Mortelle wounds"),
    "failed_saves": lazy("Failed saves"),
    "wounds_after_feel_no_pain": lazy("Wounds after Feel No Pain"),
    "wounds_lost": lazy("Wounds lost"),
    "models_destroyed": lazy("Models destroyed"),
    "attacker_models_destroyed": lazy("Attacker's models destroyed"),
    "attacker_wounds_lost": lazy("Attacker's wounds lost"),
    "sweep_casualties": lazy("Sweeping advance casualties"),
    "glancing_hits": lazy("Glancing hits"),
    "penetrating_hits": lazy("Penetrating hits"),
    "hull_points_lost": lazy("Hull points lost"),
    # the live roll's step stages
    "cover": lazy("Cover saves"),
    "saves": lazy("Saves"),
    "counter-attack": lazy("Counter-attack"),
    "morale": lazy("Morale"),
    "sweep": lazy("Sweeping advance"),
    "penetration": lazy("Penetration"),
    "damage": lazy("Damage"),
    # the attack plan
    "plan": lazy("Attack plan"),
    "skill": lazy("Skill used"),
    "to_hit": lazy("To hit"),
    "modifiers": lazy("Modifiers"),
    "name": lazy("Name"),
    "value": lazy("Value"),
    "cover_save": lazy("Cover save"),
    "strength": lazy("Strength"),
    "notes": lazy("Notes"),
    "to_wound": lazy("To wound"),
    "mortelle": lazy("Mortelle"),
    "armour": lazy("Armour"),
    # the vehicle section
    "vehicle": lazy("Vehicle"),
    "p_destroyed": lazy("Chance destroyed"),
    "p_exploded": lazy("Chance exploded"),
    "p_weapon_lost": lazy("Chance of a weapon lost"),
    "results": lazy("Damage results"),
    "expected": lazy("Expected number"),
    "p_at_least_once": lazy("Chance at least once"),
    "p_glancing_per_hit": lazy("Chance of a glancing hit per hit"),
    "p_penetrating_per_hit": lazy("Chance of a penetrating hit per hit"),
    "p_immobilised_after": lazy("Chance immobilised afterwards"),
    "destroyed": lazy_pgettext("vehicle", "Destroyed"),
    "exploded": lazy_pgettext("vehicle", "Exploded"),
    "shaken": lazy_pgettext("vehicle", "Shaken"),
    "weapons_damaged": lazy_pgettext("vehicle", "Weapons damaged"),
    "weapon_destroyed": lazy_pgettext("vehicle", "Weapon destroyed"),
    "weapon_explodes": lazy_pgettext("vehicle", "Weapon explodes"),
    "weapons_left": lazy("Weapons left"),
    "driver_stunned": lazy_pgettext("vehicle", "Driver stunned"),
    "reduced_mobility": lazy_pgettext("vehicle", "Reduced mobility"),
    "immobilised": lazy_pgettext("vehicle", "Immobilised"),
    "out_of_control": lazy_pgettext("vehicle", "Out of control"),
    "crash": lazy_pgettext("vehicle", "Crash"),
    "damaged": lazy_pgettext("vehicle", "Damaged"),
    "heavily_damaged": lazy_pgettext("vehicle", "Heavily damaged"),
    "violent_crash": lazy_pgettext("vehicle", "Violent crash"),
    "no_effect": lazy_pgettext("vehicle", "No effect"),
    # the combat result (melee)
    "combat_result": lazy("Combat result"),
    "p_attacker_wins": lazy("Chance the attacker wins"),
    "p_draw": lazy("Chance of a draw"),
    "p_defender_wins": lazy("Chance the defender wins"),
    "p_loser_breaks": lazy("Chance the loser breaks"),
    "defender_casualties": lazy("Defender's casualties"),
    "attacker_casualties": lazy("Attacker's casualties"),
    "sweep_casualties_on_defender": lazy("Sweeping advance casualties of the defender"),
    "sweep_casualties_on_attacker": lazy("Sweeping advance casualties of the attacker"),
    "expected_sweep_casualties": lazy("Expected sweeping advance casualties"),
    "strike_back_modelled": lazy("Strike back counted"),
    "attacker_initiative": lazy("Attacker's Initiative"),
    "defender_initiative": lazy("Defender's Initiative"),
    "winner": lazy("Winner"),
    "morale_passed": lazy("Morale test passed"),
    "swept": lazy("Caught by the sweeping advance"),
    "attacker_models_remaining": lazy("Attacker's models remaining"),
}
_COUNTER = "counter_"
_WOUND_KEY = re.compile(r"^wound AP(?P<ap>\S+)(?P<mortelle> mortelle)?$")


def _counter(key: str) -> Label:
    base = _KEYS[key]
    return lambda: _("%(stage)s (strike back)") % {"stage": translate(base)}


def _wound_row(m: re.Match[str]) -> Label:
    ap = m["ap"]
    if m["mortelle"]:
        return lambda: _("Mortelle wound, AP %(ap)s") % {"ap": ap}
    return lambda: _("Wound, AP %(ap)s") % {"ap": ap}


class Labels(Mapping[str, Label]):
    """The PEN keys' labels, with the keys built from others (``counter_hits``,
    ``wound AP2``)."""

    def __getitem__(self, key: str) -> Label:
        if key in _KEYS:
            return _KEYS[key]
        if key.startswith(_COUNTER) and key[len(_COUNTER) :] in _KEYS:
            return _counter(key[len(_COUNTER) :])
        m = _WOUND_KEY.match(key)
        if m:
            return _wound_row(m)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(_KEYS)

    def __len__(self) -> int:
        return len(_KEYS)


LABELS = Labels()

# die labels (with an optional " (second roll)") and the dice outcomes the presenter does not
# know (hit locations, damage results...)
_DIE_LABELS: dict[str, Label] = {
    "to hit": lazy("To hit"),
    "to wound": lazy("To wound"),
    "area attacks": lazy("Area attacks"),
    "cover save": lazy("Cover save"),
    "save": lazy_pgettext("dice roll", "Save"),
    "feel no pain": lazy("Feel No Pain"),
    "penetration": lazy("Penetration"),
    "hit location": lazy("Hit location"),
    "damage (weapons)": lazy("Damage (weapons table)"),
    "damage (mobility)": lazy("Damage (mobility table)"),
    "damage (hull)": lazy("Damage (hull table)"),
    "counter-attack Ld test": lazy("Counter-attack Ld test"),
    "morale test": lazy("Morale test"),
    "Ld test": lazy("Ld test"),
    "sweep (pursuer)": lazy("Sweeping advance (pursuer)"),
    "sweep (fleeing)": lazy("Sweeping advance (fleeing)"),
}
_VALUES: dict[str, Label] = {
    # hit locations
    "weapons": lazy_pgettext("hit location", "weapons"),
    "mobility": lazy_pgettext("hit location", "mobility"),
    "hull": lazy_pgettext("hit location", "hull"),
    # penetration modes
    "one": lazy("1D6 + S"),
    "best_of_two": lazy("best of 2D6 + S"),
    "sum_two": lazy("2D6 + S"),
    "double_best": lazy("twice the best of 2D6 + S"),
    # the winner of a combat
    "draw": lazy("draw"),
    "attacker": lazy("the attacker"),
    "defender": lazy("the defender"),
    # generic outcomes
    "success": lazy_pgettext("die outcome", "success"),
    "fail": lazy_pgettext("die outcome", "fail"),
}
_SECOND = " (second roll)"


def _attacks(n: int) -> str:
    return ngettext("%(n)d attack", "%(n)d attacks", n) % {"n": n}


def _hits(n: int) -> str:
    return ngettext("%(n)d hit", "%(n)d hits", n) % {"n": n}


def _wounds(n: int) -> str:
    return ngettext("%(n)d wound", "%(n)d wounds", n) % {"n": n}


def _allocated(n: int) -> str:
    return ngettext(
        "%(n)d wound allocated (%(save)s): %(failed)s, %(lost)s",
        "%(n)d wounds allocated (%(save)s): %(failed)s, %(lost)s",
        n,
    )


def _failed_saves(n: int) -> str:
    return ngettext("%(n)d failed save", "%(n)d failed saves", n) % {"n": n}


def _w_lost(n: int) -> str:
    return ngettext("%(n)d W lost", "%(n)d W lost", n) % {"n": n}


def _penetration_rolls(n: int) -> str:
    return ngettext("%(n)d penetration roll", "%(n)d penetration rolls", n) % {"n": n}


def code(text: str) -> str:
    """A roll code of the engine (``3+``, ``6/4+``, ``3+ re``, ``4+ re 5+``) in the locale."""
    m = re.match(r"^(?P<code>\S+) re(?: (?P<again>\d)\+)?$", text)
    if m is None:
        return text
    if m["again"]:
        return _("%(code)s, re-roll on %(again)s+") % {"code": m["code"], "again": m["again"]}
    return _("%(code)s, re-roll the failures") % {"code": m["code"]}


def _save(text: str) -> str:
    return _("no save") if text == "None" else _("save %(code)s") % {"code": code(text)}


def _results(text: str) -> str:
    if text == "no effect":
        return pgettext("die outcome", "no effect")
    return ", ".join(value(r.strip()) for r in text.split(","))


Shape = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]
_STEPS: tuple[Shape, ...] = (
    (
        re.compile(r"^area attacks: \+(?P<n>\d+)$"),
        lambda m: _("area attacks: +%(n)s") % {"n": m["n"]},
    ),
    (
        re.compile(
            r"^(?P<a>\d+) attacks at (?P<code>.+) \(skill (?P<skill>\d+)\): (?P<n>\d+) hits$"
        ),
        lambda m: (
            _("%(attacks)s at %(code)s (skill %(skill)s): %(hits)s")
            % {
                "attacks": _attacks(int(m["a"])),
                "code": code(m["code"]),
                "skill": m["skill"],
                "hits": _hits(int(m["n"])),
            }
        ),
    ),
    (
        re.compile(r"^cover saves (?P<cover>\d+)\+: (?P<n>\d+) of (?P<hits>\d+) hits cancelled$"),
        lambda m: (
            _("cover saves %(cover)s+: %(n)s of %(hits)s cancelled")
            % {"cover": m["cover"], "n": m["n"], "hits": _hits(int(m["hits"]))}
        ),
    ),
    (
        re.compile(r"^cover saves (?P<cover>\d+)\+: (?P<n>\d+) hits cancelled$"),
        lambda m: (
            _("cover saves %(cover)s+: %(hits)s cancelled")
            % {"cover": m["cover"], "hits": _hits(int(m["n"]))}
        ),
    ),
    (re.compile(r"^no strength: no wound roll$"), lambda m: _("no strength: no wound roll")),
    (
        re.compile(r"^(?P<hits>\d+) hits at (?P<code>.+): (?P<n>\d+) wounds$"),
        lambda m: (
            _("%(hits)s at %(code)s: %(wounds)s")
            % {
                "hits": _hits(int(m["hits"])),
                "code": code(m["code"]),
                "wounds": _wounds(int(m["n"])),
            }
        ),
    ),
    (
        re.compile(
            r"^(?P<k>\d+) wounds allocated \(save (?P<save>.+)\): "
            r"(?P<failed>\d+) failed saves, (?P<lost>\d+) W lost$"
        ),
        lambda m: (
            _allocated(int(m["k"]))
            % {
                "n": int(m["k"]),
                "save": _save(m["save"]),
                "failed": _failed_saves(int(m["failed"])),
                "lost": _w_lost(int(m["lost"])),
            }
        ),
    ),
    (
        re.compile(r"^counter-attack Ld test passed: \+1 A$"),
        lambda m: _("Counter-attack Ld test passed: +1 A"),
    ),
    (re.compile(r"^counter-attack Ld test failed$"), lambda m: _("Counter-attack Ld test failed")),
    (re.compile(r"^fearless: morale passed$"), lambda m: _("Fearless: morale test passed")),
    (
        re.compile(r"^morale test at -(?P<malus>\d+): passed$"),
        lambda m: _("morale test at -%(malus)s: passed") % {"malus": m["malus"]},
    ),
    (
        re.compile(r"^morale test at -(?P<malus>\d+): failed$"),
        lambda m: _("morale test at -%(malus)s: failed") % {"malus": m["malus"]},
    ),
    (re.compile(r"^sweeping advance: caught$"), lambda m: _("sweeping advance: caught")),
    (re.compile(r"^sweeping advance: escaped$"), lambda m: _("sweeping advance: escaped")),
    (
        re.compile(
            r"^(?P<hits>\d+) penetration rolls vs armour (?P<armour>\d+): "
            r"(?P<g>\d+) glancing, (?P<p>\d+) penetrating$"
        ),
        lambda m: (
            _(
                "%(rolls)s against armour %(armour)s: %(glancing)s glancing, %(penetrating)s "
                "penetrating"
            )
            % {
                "rolls": _penetration_rolls(int(m["hits"])),
                "armour": m["armour"],
                "glancing": m["g"],
                "penetrating": m["p"],
            }
        ),
    ),
    (
        re.compile(r"^invulnerable saves (?P<save>.+): (?P<n>\d+) damage cancelled$"),
        lambda m: (
            _("invulnerable saves %(save)s: %(n)s damage results cancelled")
            % {"save": code(m["save"]), "n": m["n"]}
        ),
    ),
    (
        re.compile(r"^glancing damage: (?P<results>.+)$"),
        lambda m: _("glancing hit: %(results)s") % {"results": _results(m["results"])},
    ),
    (
        re.compile(r"^penetrating damage: (?P<results>.+)$"),
        lambda m: _("penetrating hit: %(results)s") % {"results": _results(m["results"])},
    ),
)


def value(text: str) -> str:
    """A word the engine writes as a value or an outcome (a hit location, a damage result, a
    penetration mode, a combat's winner), else unknown."""
    msgid = _VALUES.get(text)
    if msgid is None:
        msgid = _KEYS.get(text) if text in _DAMAGE_RESULTS else None
    return translate(msgid) if msgid is not None else untranslated(text)


_DAMAGE_RESULTS = frozenset(
    {
        "no_effect",
        "shaken",
        "weapons_damaged",
        "weapon_destroyed",
        "weapon_explodes",
        "driver_stunned",
        "reduced_mobility",
        "immobilised",
        "crash",
        "damaged",
        "heavily_damaged",
        "violent_crash",
        "destroyed",
        "exploded",
    }
)


def words(text: str, skill_word: Callable[[str], str] | None = None) -> str:
    """A step text, die label, outcome or value of the PEN engine in the current locale."""
    if not text or not re.search(r"[A-Za-z]", text):
        return text  # a number, a roll code
    base, second = (text[: -len(_SECOND)], True) if text.endswith(_SECOND) else (text, False)
    if base in _DIE_LABELS:
        label = translate(_DIE_LABELS[base])
        return _("%(label)s (second roll)") % {"label": label} if second else label
    for pattern, rebuild in _STEPS:
        m = pattern.match(text)
        if m:
            return rebuild(m)
    if text in _VALUES or text in _DAMAGE_RESULTS:
        return value(text)
    if re.match(r"^\S+ re(?: \d\+)?$", text):
        return code(text)
    if skill_word is not None:
        return skill_word(text)
    return untranslated(text)
