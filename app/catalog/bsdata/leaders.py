"""Leader abilities: the Bodyguard units a Leader names (read from its rules text in memory;
only the names are kept) and whether it may join a unit that already has a Leader."""

from __future__ import annotations

import re
from dataclasses import replace

from app.engine.wh40k10e.army.catalog import Datasheet
from app.engine.wh40k10e.army.names import name_key

__all__ = ["canonical_leader_targets", "extra_leader", "leader_targets"]

_MARKUP = re.compile(r"[\^*]{2,}")
_BULLET = "■•▪●-–"


def _clean(text: str) -> str:
    """Strip BattleScribe markup (``^^**KEYWORD**^^``) and non-breaking spaces."""
    return " ".join(_MARKUP.sub("", text.replace("\xa0", " ")).split())


def leader_targets(text: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The Bodyguard units named in a Leader ability (names only), and those marked with a
    footnote asterisk (attachable only with some wargear)."""
    if not text:
        return (), ()
    names: list[str] = []
    conditional: list[str] = []
    lines = [ln.strip() for ln in text.replace("\xa0", " ").splitlines() if ln.strip()]
    if not lines:
        return (), ()
    head = lines[0]
    candidates: list[str] = []
    if ":" in head and head.split(":", 1)[1].strip():
        inline = _clean(head.split(":", 1)[1])
        candidates.extend(x for x in re.split(r",|\band\b", inline) if x.strip())
    for ln in lines[1:]:
        if ln[0] in _BULLET:
            candidates.append(ln.lstrip(_BULLET).strip())
    for raw in candidates:
        cleaned = _clean(raw).strip().rstrip(".")
        star = cleaned.endswith("*")
        cleaned = cleaned.rstrip("*").strip()
        if not cleaned or len(cleaned) > 120:
            continue
        if cleaned not in names:
            names.append(cleaned)
            if star:
                conditional.append(cleaned)
    return tuple(names), tuple(conditional)


def extra_leader(text: str | None) -> bool:
    """Whether the Leader may join a unit that already has a Leader ("... even if one Captain
    ... has already been attached to it")."""
    if not text:
        return False
    lowered = text.replace("\xa0", " ").lower()
    return "even if" in lowered and "already been attached" in " ".join(lowered.split())


def canonical_leader_targets(sheet: Datasheet, by_key: dict[str, str]) -> Datasheet:
    """Spell the Bodyguard units as their datasheets are named (case, "[Legends]")."""

    def fix(name: str) -> str:
        key = name_key(name)
        return by_key.get(key) or by_key.get(f"{key} [legends]") or name

    leader_of = tuple(dict.fromkeys(fix(n) for n in sheet.leader_of))
    conditional = tuple(dict.fromkeys(fix(n) for n in sheet.leader_of_conditional))
    if leader_of == sheet.leader_of and conditional == sheet.leader_of_conditional:
        return sheet
    return replace(sheet, leader_of=leader_of, leader_of_conditional=conditional)
