"""Weapon abilities of the 10th-edition core rules, parsed from the text players write.

``parse_ability("Sustained hits D3")`` -> ``Ability(SUSTAINED_HITS, x=D3)``. Matching is
case-insensitive and accepts the community's BattleScribe spellings ("Twin Linked",
"Anti-infantry 4+", "[DEVASTATING WOUNDS]"), hyphens or spaces, and the French names of the
seed ("Touches Fatales", "Jumelé"...). An unknown text raises :class:`UnknownAbility`, a
:class:`~app.engine.errors.ProfileError` naming the text and suggesting the closest known one.

Rules: wh40k-10e-core-1.md §2.4 [L2004–L2391]. One Shot is not in the seed (the note says so,
§1); it is accepted as a no-op on the maths of one activation (a once-per-battle restriction).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from app.engine.dice import DiceExpr
from app.engine.errors import N_, DiceExpressionError, Message, ProfileError

__all__ = [
    "Ability",
    "AbilityKind",
    "UnknownAbility",
    "known_ability_names",
    "normalise_keyword",
    "parse_abilities",
    "parse_ability",
]

MAX_ABILITY_TEXT = 60
MAX_X = 10  # bound on Rapid Fire / Sustained Hits / Melta X (as a dice expression's maximum)


class AbilityKind(StrEnum):
    ASSAULT = "assault"
    HEAVY = "heavy"
    RAPID_FIRE = "rapid_fire"
    PISTOL = "pistol"
    TORRENT = "torrent"
    BLAST = "blast"
    LETHAL_HITS = "lethal_hits"
    SUSTAINED_HITS = "sustained_hits"
    DEVASTATING_WOUNDS = "devastating_wounds"
    ANTI = "anti"
    MELTA = "melta"
    TWIN_LINKED = "twin_linked"
    LANCE = "lance"
    IGNORES_COVER = "ignores_cover"
    INDIRECT_FIRE = "indirect_fire"
    PRECISION = "precision"
    HAZARDOUS = "hazardous"
    EXTRA_ATTACKS = "extra_attacks"
    ONE_SHOT = "one_shot"
    PSYCHIC = "psychic"


_DISPLAY: dict[AbilityKind, str] = {
    AbilityKind.ASSAULT: "Assault",
    AbilityKind.HEAVY: "Heavy",
    AbilityKind.RAPID_FIRE: "Rapid Fire",
    AbilityKind.PISTOL: "Pistol",
    AbilityKind.TORRENT: "Torrent",
    AbilityKind.BLAST: "Blast",
    AbilityKind.LETHAL_HITS: "Lethal Hits",
    AbilityKind.SUSTAINED_HITS: "Sustained Hits",
    AbilityKind.DEVASTATING_WOUNDS: "Devastating Wounds",
    AbilityKind.ANTI: "Anti",
    AbilityKind.MELTA: "Melta",
    AbilityKind.TWIN_LINKED: "Twin-linked",
    AbilityKind.LANCE: "Lance",
    AbilityKind.IGNORES_COVER: "Ignores Cover",
    AbilityKind.INDIRECT_FIRE: "Indirect Fire",
    AbilityKind.PRECISION: "Precision",
    AbilityKind.HAZARDOUS: "Hazardous",
    AbilityKind.EXTRA_ATTACKS: "Extra Attacks",
    AbilityKind.ONE_SHOT: "One Shot",
    AbilityKind.PSYCHIC: "Psychic",
}

_WITH_X = (AbilityKind.RAPID_FIRE, AbilityKind.SUSTAINED_HITS, AbilityKind.MELTA)


@dataclass(frozen=True, slots=True)
class Ability:
    """One weapon ability: ``x`` for Rapid Fire / Sustained Hits / Melta X; ``keyword`` and
    ``threshold`` for Anti-KEYWORD X+ (keyword upper-case, singular-normalised)."""

    kind: AbilityKind
    x: DiceExpr | None = None
    keyword: str | None = None
    threshold: int | None = None

    def __str__(self) -> str:
        if self.kind is AbilityKind.ANTI:
            return f"Anti-{(self.keyword or '').title()} {self.threshold}+"
        if self.x is not None:
            return f"{_DISPLAY[self.kind]} {self.x}"
        return _DISPLAY[self.kind]


class UnknownAbility(ProfileError):
    """An ability text that is not a core weapon ability (or is malformed)."""

    def __init__(
        self, text: str, suggestion: str | None = None, *, reason: str | Message = ""
    ) -> None:
        if reason:
            message = Message(
                N_("%(reason)s in weapon ability %(text)s"),
                {
                    "reason": reason if isinstance(reason, Message) else Message(reason),
                    "text": repr(text),
                },
            )
        else:
            message = Message(N_("unknown weapon ability %(text)s"), {"text": repr(text)})
        if suggestion:
            message = Message(
                N_("%(problem)s; did you mean %(suggestion)s?"),
                {"problem": message, "suggestion": repr(suggestion)},
            )
        super().__init__("abilities", message)
        self.text = text
        self.suggestion = suggestion


def _fold(text: str) -> str:
    """Lower-case, accents removed, brackets/underscores dropped, spaces collapsed."""
    t = unicodedata.normalize("NFKD", text)
    t = "".join(c for c in t if not unicodedata.combining(c))
    t = t.replace("’", "'").replace("_", " ").strip().strip("[]").strip()
    return re.sub(r"\s+", " ", t.lower())


def normalise_keyword(keyword: str) -> str:
    """Upper-case, spaces collapsed, a plural final S dropped (singular and plural forms of a
    keyword are the same keyword [L220])."""
    k = re.sub(r"[\s_-]+", " ", _fold(keyword)).strip().upper()
    if len(k) > 4 and k.endswith("IES"):
        k = k[:-3] + "Y"
    elif len(k) > 3 and k.endswith("S") and not k.endswith("SS"):
        k = k[:-1]
    return k


# Names without a parameter (after folding and turning hyphens into spaces).
_PLAIN: dict[str, AbilityKind] = {
    "assault": AbilityKind.ASSAULT,
    "assaut": AbilityKind.ASSAULT,
    "heavy": AbilityKind.HEAVY,
    "lourd": AbilityKind.HEAVY,
    "pistol": AbilityKind.PISTOL,
    "pistolet": AbilityKind.PISTOL,
    "torrent": AbilityKind.TORRENT,
    "blast": AbilityKind.BLAST,
    "deflagration": AbilityKind.BLAST,
    "lethal hits": AbilityKind.LETHAL_HITS,
    "lethal hit": AbilityKind.LETHAL_HITS,
    "touches fatales": AbilityKind.LETHAL_HITS,
    "devastating wounds": AbilityKind.DEVASTATING_WOUNDS,
    "devastating wound": AbilityKind.DEVASTATING_WOUNDS,
    "blessures devastatrices": AbilityKind.DEVASTATING_WOUNDS,
    "twin linked": AbilityKind.TWIN_LINKED,
    "twinlinked": AbilityKind.TWIN_LINKED,
    "jumele": AbilityKind.TWIN_LINKED,
    "lance": AbilityKind.LANCE,
    "ignores cover": AbilityKind.IGNORES_COVER,
    "ignore cover": AbilityKind.IGNORES_COVER,
    "ignore le couvert": AbilityKind.IGNORES_COVER,
    "indirect fire": AbilityKind.INDIRECT_FIRE,
    "tir indirect": AbilityKind.INDIRECT_FIRE,
    "precision": AbilityKind.PRECISION,
    "hazardous": AbilityKind.HAZARDOUS,
    "a risque": AbilityKind.HAZARDOUS,
    "extra attacks": AbilityKind.EXTRA_ATTACKS,
    "extra attack": AbilityKind.EXTRA_ATTACKS,
    "attaques bonus": AbilityKind.EXTRA_ATTACKS,
    "one shot": AbilityKind.ONE_SHOT,
    "un seul tir": AbilityKind.ONE_SHOT,
    "psychic": AbilityKind.PSYCHIC,
    "psychique": AbilityKind.PSYCHIC,
}

_WITH_PARAM: dict[str, AbilityKind] = {
    "rapid fire": AbilityKind.RAPID_FIRE,
    "tir rapide": AbilityKind.RAPID_FIRE,
    "sustained hits": AbilityKind.SUSTAINED_HITS,
    "sustained hit": AbilityKind.SUSTAINED_HITS,
    "touches soutenues": AbilityKind.SUSTAINED_HITS,
    "melta": AbilityKind.MELTA,
    "fusion": AbilityKind.MELTA,
}

_PARAM = re.compile(r"^(?P<name>[a-z' ]+?)\s*(?P<x>\d*d?\d+(?:\s*\+\s*\d+)?)$")
_ANTI = re.compile(r"^anti\s*[- ]\s*(?P<kw>.+?)\s+(?P<x>\d+)\s*\+?$")

_SUGGESTIONS: dict[str, str] = {
    **{name: _DISPLAY[kind] for name, kind in _PLAIN.items()},
    **{f"{name} 1": f"{_DISPLAY[kind]} 1" for name, kind in _WITH_PARAM.items()},
    "anti infantry 4+": "Anti-Infantry 4+",
}


def known_ability_names() -> list[str]:
    """Display names of every known ability (parametrised ones with their parameter)."""
    out = []
    for kind in AbilityKind:
        if kind is AbilityKind.ANTI:
            out.append("Anti-KEYWORD X+")
        elif kind in _WITH_X:
            out.append(f"{_DISPLAY[kind]} X")
        else:
            out.append(_DISPLAY[kind])
    return out


def _suggest(folded: str) -> str | None:
    key = folded.replace("-", " ")
    match = difflib.get_close_matches(key, list(_SUGGESTIONS), n=1, cutoff=0.5)
    return _SUGGESTIONS[match[0]] if match else None


def parse_ability(text: str) -> Ability:
    """Parse one ability as written on a datasheet or in BattleScribe data."""
    if not isinstance(text, str):
        raise UnknownAbility(repr(text), reason=Message(N_("expected text")))
    if len(text) > MAX_ABILITY_TEXT:
        raise UnknownAbility(text[:MAX_ABILITY_TEXT] + "...", reason=Message(N_("too long")))
    folded = _fold(text)
    if not folded:
        raise UnknownAbility(text, reason=Message(N_("empty text")))

    anti = _ANTI.match(folded)
    if anti is not None:
        threshold = int(anti["x"])
        keyword = normalise_keyword(anti["kw"])
        if not 2 <= threshold <= 6:
            raise UnknownAbility(text, reason=Message(N_("the X of Anti-KEYWORD X+ must be 2..6")))
        if not keyword or not re.fullmatch(r"[A-Z0-9' ]+", keyword):
            raise UnknownAbility(text, reason=Message(N_("a keyword is needed")))
        return Ability(AbilityKind.ANTI, keyword=keyword, threshold=threshold)

    plain = folded.replace("-", " ")
    plain = re.sub(r"\s+", " ", plain).strip()
    if plain in _PLAIN:
        return Ability(_PLAIN[plain])

    param = _PARAM.match(plain)
    if param is not None and param["name"].strip() in _WITH_PARAM:
        kind = _WITH_PARAM[param["name"].strip()]
        try:
            x = DiceExpr.parse(param["x"])
        except DiceExpressionError as exc:
            raise UnknownAbility(
                text, reason=Message(N_("bad X (%(problem)s)"), {"problem": exc.reason})
            ) from None
        if x.max > MAX_X or x.max < 1:
            raise UnknownAbility(
                text, reason=Message(N_("X must be between 1 and %(most)s"), {"most": MAX_X})
            )
        return Ability(kind, x=x)
    if plain in _WITH_PARAM:
        kind = _WITH_PARAM[plain]
        raise UnknownAbility(
            text,
            f"{_DISPLAY[kind]} 1",
            reason=Message(
                N_("%(ability)s needs its X (e.g. 1 or D3)"), {"ability": _DISPLAY[kind]}
            ),
        )
    raise UnknownAbility(text, _suggest(folded))


def parse_abilities(texts: Iterable[str | Ability]) -> tuple[Ability, ...]:
    """Parse several abilities (already-parsed ones pass through). Every bad text is reported:
    the raised :class:`UnknownAbility` is about the first one, and its ``errors`` lists each
    one as ``("abilities[i]", message)``."""
    out: list[Ability] = []
    problems: list[tuple[int, UnknownAbility]] = []
    for i, text in enumerate(texts):
        if isinstance(text, Ability):
            out.append(text)
            continue
        try:
            out.append(parse_ability(text))
        except UnknownAbility as exc:
            problems.append((i, exc))
    if problems:
        first_index, first = problems[0]
        err = UnknownAbility(first.text, first.suggestion)
        err.message = first.message
        err.field = f"abilities[{first_index}]"
        err.errors = tuple((f"abilities[{i}]", e.message) for i, e in problems)
        err.templates = tuple(e.templates[0] for _i, e in problems)
        err.args = ("; ".join(f"{f}: {m}" for f, m in err.errors),)
        raise err
    return tuple(out)
