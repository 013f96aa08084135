"""PEN vocabulary: weapon properties, universal special rules, weapon and unit types.

Players write these names in French (the seed's words) or English, with or without accents and
in any case: ``"Perforant"``, ``"rending"``, ``"PERFORANT"``, ``"Anti-endurance (3+)"``,
``"Précision 5+"``, ``"Ennemi juré (Orks)"``. :func:`parse_rule` turns one into a
:class:`RuleRef`; an unknown name raises :class:`UnknownName` with the closest known name.

Sources: weapon properties §2.9 of the note [L624-L706], universal special rules §2.10
[L355-L478], weapon types §2.6 [L486-L513], unit types §2.2 [L125-L345].
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from app.engine.errors import N_, Message

__all__ = [
    "RULE_INFO",
    "UNKNOWN_MESSAGES",
    "BadRuleValue",
    "Rule",
    "RuleInfo",
    "RuleRef",
    "RuleScope",
    "UnknownName",
    "normalise",
    "parse_rule",
    "resolve_name",
    "unknown_message",
]


def normalise(text: str) -> str:
    """Case-, accent- and punctuation-insensitive key: "Anti-Véhicule" -> "anti vehicule"."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    stripped = stripped.replace("œ", "oe").replace("Œ", "oe").casefold()
    return " ".join(re.sub(r"[^a-z0-9+]+", " ", stripped).split())


#: the message of an unknown name of each kind (its own message: French agrees the adjective
#: with the noun); a kind not listed says "unknown <kind>"
UNKNOWN_MESSAGES: dict[str, str] = {
    "property or special rule": N_("unknown property or special rule %(text)s"),
    "weapon type": N_("unknown weapon type %(text)s"),
    "melee weapon": N_("unknown melee weapon %(text)s"),
    "weapon": N_("unknown weapon %(text)s"),
    "unit type": N_("unknown unit type %(text)s"),
    "vehicle type": N_("unknown vehicle type %(text)s"),
    "template": N_("unknown template %(text)s"),
    "facing": N_("unknown facing %(text)s"),
    "damage result": N_("unknown damage result %(text)s"),
    "twin-linked mode": N_("unknown twin-linked mode %(text)s"),
    "vehicle location": N_("unknown vehicle location %(text)s"),
}


def unknown_message(kind: str, text: str, suggestion: str | None) -> Message:
    """``unknown <kind> 'text'; did you mean 'suggestion'?`` as a :class:`Message` a page
    translates (``str()`` is the English)."""
    msgid = UNKNOWN_MESSAGES.get(kind)
    problem = (
        Message(msgid, {"text": repr(text)})
        if msgid
        else Message(N_("unknown %(kind)s %(text)s"), {"kind": kind, "text": repr(text)})
    )
    if not suggestion:
        return problem
    return Message(
        N_("%(problem)s; did you mean %(suggestion)s?"),
        {"problem": problem, "suggestion": repr(suggestion)},
    )


class UnknownName(LookupError):
    """A name that is not in the vocabulary; ``suggestion`` is the closest known one (or None).

    ``message`` is the English text, ``template`` the same as a :class:`Message` a page shows
    in the reader's language."""

    def __init__(self, kind: str, text: str, suggestion: str | None) -> None:
        template = unknown_message(kind, text, suggestion)
        super().__init__(str(template))
        self.kind = kind
        self.text = text
        self.suggestion = suggestion
        self.template = template
        self.message = str(template)


class BadRuleValue(ValueError):
    """A known property or rule with a value it does not take (``"Perforant 4+"``):
    ``str()`` is the English, ``template`` the :class:`Message` a page translates."""

    def __init__(self, template: Message) -> None:
        super().__init__(str(template))
        self.template = template
        self.message = str(template)


E = TypeVar("E", bound=StrEnum)


def resolve_name(kind: str, text: str, aliases: Mapping[str, E], display: Mapping[E, str]) -> E:
    """Look ``text`` up in ``aliases`` (normalised keys); suggest the closest on failure."""
    key = normalise(text)
    found = aliases.get(key)
    if found is not None:
        return found
    close = difflib.get_close_matches(key, list(aliases), n=1, cutoff=0.6)
    suggestion = display[aliases[close[0]]] if close else None
    raise UnknownName(kind, text, suggestion)


class RuleScope(StrEnum):
    WEAPON = "weapon"  # a weapon property (§2.9)
    UNIT = "unit"  # a universal special rule of a model (§2.10)


class Rule(StrEnum):
    """Every weapon property (§2.9) and universal special rule (§2.10) of the seed."""

    # weapon properties [L624-L706]
    ANTI_AIR = "anti_air"
    IGNORES_COVER = "ignores_cover"
    ANTI_TOUGHNESS = "anti_toughness"
    ANTI_VEHICLE = "anti_vehicle"
    CONCUSSIVE = "concussive"
    BLIND = "blind"
    BARRAGE = "barrage"
    WOUNDING = "wounding"
    BOMB = "bomb"
    EMP = "emp"
    IGNITE = "ignite"
    POISONED = "poisoned"
    FREEZE = "freeze"
    TWIN_LINKED = "twin_linked"
    LANCE = "lance"
    MELTA = "melta"
    MORTELLE = "mortelle"
    PENETRATING = "penetrating"
    REND = "rend"
    PINNING = "pinning"
    SONIC = "sonic"
    SNIPER = "sniper"
    OVERHEAT = "overheat"
    SUSTAINED_FIRE = "sustained_fire"
    TORRENT = "torrent"
    ONE_SHOT = "one_shot"
    WAVES = "waves"
    AUTO_TARGETING = "auto_targeting"
    # universal special rules [L355-L478]
    MOVE_THROUGH_COVER = "move_through_cover"
    SKIMMER = "skimmer"
    FLYBY_ATTACK = "flyby_attack"
    METEOR_ATTACK = "meteor_attack"
    AREA_ATTACKS = "area_attacks"
    SMASH = "smash"
    EXTRA_SENSES = "extra_senses"
    FURIOUS_CHARGE = "furious_charge"
    TANK_HUNTERS = "tank_hunters"
    SKILLED_RIDER = "skilled_rider"
    COUNTER_ATTACK = "counter_attack"
    FLEET = "fleet"
    DAEMON = "daemon"
    SKID = "skid"
    DISENGAGE = "disengage"
    SHROUDED = "shrouded"
    PREFERRED_ENEMY = "preferred_enemy"
    SWARM = "swarm"
    DEEP_STRIKE = "deep_strike"
    STEALTH = "stealth"
    GIANT = "giant"
    ETERNAL_WARRIOR = "eternal_warrior"
    HIT_AND_RUN = "hit_and_run"
    ATSKNF = "and_they_shall_know_no_fear"
    RELENTLESS = "relentless"
    INFILTRATE = "infiltrate"
    FEEL_NO_PAIN = "feel_no_pain"
    INVISIBLE = "invisible"
    SLOW_AND_PURPOSEFUL = "slow_and_purposeful"
    STUBBORN = "stubborn"
    INDEPENDENT_CHARACTER = "independent_character"
    PRECISION = "precision"
    PSYKER = "psyker"
    RAGE = "rage"
    REGENERATION = "regeneration"
    FEARLESS = "fearless"
    SCOUT = "scout"
    SUPERSONIC = "supersonic"
    LURKS_IN_SHADOWS = "lurks_in_shadows"
    TELEPORT = "teleport"
    SHOOT_ON_THE_MOVE = "shoot_on_the_move"
    TERRIFYING = "terrifying"
    NIGHT_VISION = "night_vision"
    VULNERABLE_TO_TEMPLATES = "vulnerable_to_templates"


class ValueKind(StrEnum):
    NONE = "none"  # no parameter
    ROLL = "roll"  # a D6 threshold "X+", with a default
    TEXT = "text"  # free text (Ennemi juré (X): a category)


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """How a rule is written and whether it changes the dice of an attack analysis."""

    french: str
    english: str
    scope: RuleScope
    line: str
    aliases: tuple[str, ...] = ()
    value: ValueKind = ValueKind.NONE
    default: int | None = None
    changes_attack_dice: bool = False


_W = RuleScope.WEAPON
_U = RuleScope.UNIT

RULE_INFO: dict[Rule, RuleInfo] = {
    Rule.ANTI_AIR: RuleInfo(
        "Anti-aérien", "Anti-aircraft", _W, "L626", ("flak", "skyfire"), changes_attack_dice=True
    ),
    Rule.IGNORES_COVER: RuleInfo(
        "Anti-couvert", "Ignores cover", _W, "L628", changes_attack_dice=True
    ),
    Rule.ANTI_TOUGHNESS: RuleInfo(
        "Anti-endurance",
        "Anti-toughness",
        _W,
        "L630",
        value=ValueKind.ROLL,
        default=4,
        changes_attack_dice=True,
    ),
    Rule.ANTI_VEHICLE: RuleInfo(
        "Anti-véhicule", "Anti-vehicle", _W, "L632", ("armourbane",), changes_attack_dice=True
    ),
    Rule.CONCUSSIVE: RuleInfo("Assommant", "Concussive", _W, "L634", ("stunning",)),
    Rule.BLIND: RuleInfo("Aveuglant", "Blind", _W, "L636", ("aveuglante", "blinding")),
    Rule.BARRAGE: RuleInfo("Barrage", "Barrage", _W, "L640", changes_attack_dice=True),
    Rule.WOUNDING: RuleInfo(
        "Blessant",
        "Wounding",
        _W,
        "L649",
        ("blessante", "reroll wounds", "re roll wounds", "shred"),
        changes_attack_dice=True,
    ),
    Rule.BOMB: RuleInfo("Bombe aérienne", "Bomb", _W, "L651", ("bombe",)),
    Rule.EMP: RuleInfo("IEM", "EMP", _W, "L655", ("haywire",), changes_attack_dice=True),
    Rule.IGNITE: RuleInfo(
        "Embrasement",
        "Ignite",
        _W,
        "L660",
        ("distorsion", "distort", "embrasant", "embrasante"),
        changes_attack_dice=True,
    ),
    Rule.POISONED: RuleInfo(
        "Empoisonnée",
        "Poisoned",
        _W,
        "L665",
        ("empoisonne", "poison"),
        value=ValueKind.ROLL,
        default=4,
        changes_attack_dice=True,
    ),
    Rule.FREEZE: RuleInfo(
        "Givrage", "Freeze", _W, "L667", ("paralysant", "paralyse", "paralyze", "freezing")
    ),
    Rule.TWIN_LINKED: RuleInfo(
        "Jumelée", "Twin-linked", _W, "L671", ("jumele", "twin linked"), changes_attack_dice=True
    ),
    Rule.LANCE: RuleInfo("Lance", "Lance", _W, "L673", changes_attack_dice=True),
    Rule.MELTA: RuleInfo("Melta", "Melta", _W, "L675", changes_attack_dice=True),
    Rule.MORTELLE: RuleInfo(
        "Mortelle",
        "Instant death",
        _W,
        "L677",
        ("deadly", "instant kill"),
        changes_attack_dice=True,
    ),
    Rule.PENETRATING: RuleInfo(
        "Pénétrant",
        "Penetrating",
        _W,
        "L679",
        ("penetrante", "penetrantes"),
        changes_attack_dice=True,
    ),
    Rule.REND: RuleInfo(
        "Perforant", "Rending", _W, "L683", ("perforante", "rend"), changes_attack_dice=True
    ),
    Rule.PINNING: RuleInfo("Pilonnage", "Pinning", _W, "L685", ("pilonnant", "pilonnants")),
    Rule.SONIC: RuleInfo("Sonique", "Sonic", _W, "L687"),
    Rule.SNIPER: RuleInfo("Sniper", "Sniper", _W, "L689", changes_attack_dice=True),
    Rule.OVERHEAT: RuleInfo(
        "Surchauffe",
        "Overheat",
        _W,
        "L694",
        ("enrayement", "gets hot", "jam", "jams", "surchauffe enrayement"),
        value=ValueKind.ROLL,
        default=6,
    ),
    Rule.SUSTAINED_FIRE: RuleInfo(
        "Tirs soutenus",
        "Sustained fire",
        _W,
        "L696",
        ("tir soutenu", "tirs soutenu"),
        changes_attack_dice=True,
    ),
    Rule.TORRENT: RuleInfo("Torrent", "Torrent", _W, "L698"),
    Rule.ONE_SHOT: RuleInfo("Unique", "One-shot", _W, "L702", ("one use",)),
    Rule.WAVES: RuleInfo("Ondes", "Waves", _W, "L704"),
    Rule.AUTO_TARGETING: RuleInfo(
        "Visée automatique",
        "Auto-targeting",
        _W,
        "L706",
        ("tetes chercheuses", "seekers", "seeker"),
        changes_attack_dice=True,
    ),
    Rule.MOVE_THROUGH_COVER: RuleInfo("Agile à couvert", "Move through cover", _U, "L357"),
    Rule.SKIMMER: RuleInfo(
        "Antigrav", "Skimmer", _U, "L359", ("anti grav",), changes_attack_dice=True
    ),
    Rule.FLYBY_ATTACK: RuleInfo(
        "Attaque au passage", "Flyby attack", _U, "L361", ("pass attack", "hammer of wrath")
    ),
    Rule.METEOR_ATTACK: RuleInfo("Attaque météore", "Meteor attack", _U, "L368"),
    Rule.AREA_ATTACKS: RuleInfo(
        "Attaques de zone",
        "Area attacks",
        _U,
        "L370",
        ("attaque de zone",),
        changes_attack_dice=True,
    ),
    Rule.SMASH: RuleInfo(
        "Attaques smash",
        "Smash",
        _U,
        "L372",
        ("attaque smash", "smash attacks"),
        changes_attack_dice=True,
    ),
    Rule.EXTRA_SENSES: RuleInfo(
        "Capteurs extrasensoriels",
        "Extra senses",
        _U,
        "L374",
        ("acute senses",),
        changes_attack_dice=True,
    ),
    Rule.FURIOUS_CHARGE: RuleInfo(
        "Charge furieuse", "Furious charge", _U, "L376", changes_attack_dice=True
    ),
    Rule.TANK_HUNTERS: RuleInfo(
        "Chasseur de blindés",
        "Tank hunters",
        _U,
        "L378",
        ("chasseurs de blindes", "tank hunter"),
        changes_attack_dice=True,
    ),
    Rule.SKILLED_RIDER: RuleInfo("Conducteur habile", "Skilled rider", _U, "L380"),
    Rule.COUNTER_ATTACK: RuleInfo(
        "Contre-attaque", "Counter-attack", _U, "L382", changes_attack_dice=True
    ),
    Rule.FLEET: RuleInfo("Course", "Fleet", _U, "L386", ("charge rapide", "run", "fast charge")),
    Rule.DAEMON: RuleInfo("Démon", "Daemon", _U, "L388", ("demon",), changes_attack_dice=True),
    Rule.SKID: RuleInfo(
        "Dérapage", "Skid", _U, "L390", ("virage a grande vitesse", "high speed turn")
    ),
    Rule.DISENGAGE: RuleInfo("Désengagement", "Disengage", _U, "L392"),
    Rule.SHROUDED: RuleInfo(
        "Dissimulé", "Shrouded", _U, "L396", ("dissimulee",), changes_attack_dice=True
    ),
    Rule.PREFERRED_ENEMY: RuleInfo(
        "Ennemi juré",
        "Preferred enemy",
        _U,
        "L400",
        ("ennemis jures", "sworn enemy"),
        value=ValueKind.TEXT,
        changes_attack_dice=True,
    ),
    Rule.SWARM: RuleInfo("Essaim", "Swarm", _U, "L402", changes_attack_dice=True),
    Rule.DEEP_STRIKE: RuleInfo("Frappe en profondeur", "Deep strike", _U, "L404"),
    Rule.STEALTH: RuleInfo(
        "Furtif", "Stealth", _U, "L406", ("furtive", "stealthy"), changes_attack_dice=True
    ),
    Rule.GIANT: RuleInfo("Géant", "Giant", _U, "L410", ("geante",), changes_attack_dice=True),
    Rule.ETERNAL_WARRIOR: RuleInfo(
        "Guerrier éternel", "Eternal warrior", _U, "L414", changes_attack_dice=True
    ),
    Rule.HIT_AND_RUN: RuleInfo("Hit & Run", "Hit and run", _U, "L416", ("hit run",)),
    Rule.ATSKNF: RuleInfo(
        "Ils ne connaîtront pas la peur",
        "And they shall know no fear",
        _U,
        "L418",
        ("atsknf", "ils ne connaitront pas la peur"),
        changes_attack_dice=True,
    ),
    Rule.RELENTLESS: RuleInfo("Implacable", "Relentless", _U, "L420", changes_attack_dice=True),
    Rule.INFILTRATE: RuleInfo("Infiltration", "Infiltrate", _U, "L422"),
    Rule.FEEL_NO_PAIN: RuleInfo(
        "Insensible à la douleur", "Feel no pain", _U, "L426", ("fnp",), changes_attack_dice=True
    ),
    Rule.INVISIBLE: RuleInfo("Invisible", "Invisible", _U, "L430", changes_attack_dice=True),
    Rule.SLOW_AND_PURPOSEFUL: RuleInfo(
        "Lent et méthodique", "Slow and purposeful", _U, "L432", changes_attack_dice=True
    ),
    Rule.STUBBORN: RuleInfo(
        "Obstiné", "Stubborn", _U, "L434", ("obstinee",), changes_attack_dice=True
    ),
    Rule.INDEPENDENT_CHARACTER: RuleInfo(
        "Personnage indépendant", "Independent character", _U, "L438"
    ),
    Rule.PRECISION: RuleInfo(
        "Précision",
        "Precision",
        _U,
        "L440",
        value=ValueKind.ROLL,
        default=6,
        changes_attack_dice=True,
    ),
    Rule.PSYKER: RuleInfo("Psyker", "Psyker", _U, "L442"),
    Rule.RAGE: RuleInfo("Rage", "Rage", _U, "L451", changes_attack_dice=True),
    Rule.REGENERATION: RuleInfo(
        "Régénération", "Regeneration", _U, "L453", value=ValueKind.ROLL, default=5
    ),
    Rule.FEARLESS: RuleInfo("Sans peur", "Fearless", _U, "L455", changes_attack_dice=True),
    Rule.SCOUT: RuleInfo("Scout", "Scout", _U, "L457", ("scouts",)),
    Rule.SUPERSONIC: RuleInfo("Supersonique", "Supersonic", _U, "L461"),
    Rule.LURKS_IN_SHADOWS: RuleInfo(
        "Tapi dans l'ombre",
        "Lurks in shadows",
        _U,
        "L463",
        ("tapi dans l ombre", "night stalker"),
        changes_attack_dice=True,
    ),
    Rule.TELEPORT: RuleInfo("Téléportation", "Teleport", _U, "L467"),
    Rule.SHOOT_ON_THE_MOVE: RuleInfo("Tir en mouvement", "Shoot on the move", _U, "L469"),
    Rule.TERRIFYING: RuleInfo("Terrifiant", "Terrifying", _U, "L474", ("fear",)),
    Rule.NIGHT_VISION: RuleInfo(
        "Vision nocturne", "Night vision", _U, "L476", changes_attack_dice=True
    ),
    Rule.VULNERABLE_TO_TEMPLATES: RuleInfo(
        "Vulnérable aux gabarits",
        "Vulnerable to templates",
        _U,
        "L478",
        ("vulnerable au gabarit", "vulnerable to blasts"),
        changes_attack_dice=True,
    ),
}


def _rule_aliases() -> dict[str, Rule]:
    out: dict[str, Rule] = {}
    for rule, info in RULE_INFO.items():
        for name in (info.french, info.english, rule.value.replace("_", " "), *info.aliases):
            key = normalise(name)
            if key in out and out[key] is not rule:
                raise RuntimeError(f"ambiguous PEN rule alias {key!r}")  # pragma: no cover
            out[key] = rule
    return out


RULE_ALIASES: dict[str, Rule] = _rule_aliases()
RULE_DISPLAY: dict[Rule, str] = {rule: info.french for rule, info in RULE_INFO.items()}

_PARAM = re.compile(r"^(?P<name>.*?)\s*(?:\(\s*(?P<paren>[^()]*)\s*\)|\s(?P<bare>\d\+?))\s*$")


@dataclass(frozen=True, slots=True)
class RuleRef:
    """One rule as written on a profile, with its parameter (``X+`` threshold or category)."""

    rule: Rule
    value: int | None = None
    text: str | None = None

    @property
    def info(self) -> RuleInfo:
        return RULE_INFO[self.rule]

    def __str__(self) -> str:
        name = self.info.french
        if self.text is not None:
            return f"{name} ({self.text})"
        if self.value is not None and self.value != self.info.default:
            return f"{name} ({self.value}+)"
        return name


def _parse_threshold(raw: str) -> int | None:
    m = re.fullmatch(r"\s*([2-6])\s*\+?\s*", raw)
    return int(m.group(1)) if m else None


def parse_rule(text: str) -> RuleRef:
    """Parse one property / special rule as players write it (French or English).

    ``"Perforant"``, ``"rending"``, ``"Anti-endurance (3+)"``, ``"Surchauffe 4+"``,
    ``"Ennemi juré (Orks)"``. Raises :class:`UnknownName` (with a suggestion) or ``ValueError``
    for a bad parameter.
    """
    key = normalise(text)
    rule = RULE_ALIASES.get(key)
    param: str | None = None
    if rule is None:
        m = _PARAM.match(text.strip())
        if m is not None:
            name = m["name"]
            param = m["paren"] if m["paren"] is not None else m["bare"]
            rule = RULE_ALIASES.get(normalise(name))
        if rule is None:
            resolve_name("property or special rule", text, RULE_ALIASES, RULE_DISPLAY)
            raise AssertionError("unreachable")  # pragma: no cover
    info = RULE_INFO[rule]
    if param is None or not param.strip():
        return RuleRef(rule, info.default, None)
    if info.value is ValueKind.ROLL:
        threshold = _parse_threshold(param)
        if threshold is None:
            raise BadRuleValue(
                Message(
                    N_("%(rule)s: expected a roll such as '4+', got %(value)s"),
                    {"rule": info.french, "value": repr(param)},
                )
            )
        return RuleRef(rule, threshold, None)
    if info.value is ValueKind.TEXT:
        return RuleRef(rule, None, param.strip())
    raise BadRuleValue(
        Message(
            N_("%(rule)s takes no parameter, got %(value)s"),
            {"rule": info.french, "value": repr(param)},
        )
    )


def parse_rules(texts: Iterable[str]) -> tuple[RuleRef, ...]:
    """Parse several names (see :func:`parse_rule`), keeping their order."""
    return tuple(parse_rule(t) for t in texts)
