"""The army-list formats players paste, read into one plain shape (:class:`PastedList`).

Recognised (docs/formats.md describes each line kind):

- ``app``: the layout of the official app's "Export list" text, which is also our own text
  export (:mod:`app.armies.listtext`): a title ``Name (N points)``, header lines (faction,
  battle size ``Strike Force (2000 points)``, detachment), upper-case section titles, units
  ``Unit name (N points)`` with ``•`` bullets (``Warlord``, ``Enhancement: X``, ``N models``,
  ``Nx Model type`` with ``◦`` sub-bullets ``Nx Weapon``, ``Nx Weapon``, ``Attached to: …``).
- ``wtc``: New Recruit's "WTC" text: a ``+ FACTION KEYWORD: …`` / ``+ DETACHMENT: …`` block,
  then ``Char1: 1x Captain (90 pts): A, B, Enhancement: X`` and ``5x Squad (80 pts):`` with
  ``• 1x Model: A, B`` / ``• 4x Model: 4 with A, B`` lines.
- ``roster``: New Recruit's (and BattleScribe's) ``++ Army Roster ++`` text: ``+ Section +``
  titles, ``Battle Size: …`` / ``Detachment: …`` configuration lines,
  ``Unit [80pts]: A, B`` and ``. 4x Model: 4x A, 4x B`` lines.
- ``json``: New Recruit's JSON (a BattleScribe roster: ``roster.forces[].selections[]`` with
  ``name``, ``type``, ``number``, ``costs``, ``selections``).

Parsing knows no catalogue: it only splits text into units, model groups and items, keeping
each one's line (or JSON path). :mod:`app.armies.matching` maps the names to a catalogue. A line
that is none of the known kinds becomes a :class:`Problem`, never silently dropped; the few
lines that carry nothing of the list (an app's version footer, a points total, a blank
configuration switch) are named in :data:`IGNORED` and counted as such.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from app.core.ids import parse_int
from app.engine.errors import Message
from app.engine.wh40k10e.army.roster import BattleSize

MAX_TEXT_BYTES = 200_000  # a 3,000-point list with every wargear line is under 20 kB
MAX_LINES = 3_000
MAX_LINE = 500
MAX_JSON_DEPTH = 12
MAX_JSON_SELECTIONS = 5_000

APP, WTC, ROSTER, JSON_ROSTER = "app", "wtc", "roster", "json"
FORMAT_LABELS = {
    APP: "official app / Auspex text",
    WTC: "New Recruit WTC text",
    ROSTER: "New Recruit / BattleScribe roster text",
    JSON_ROSTER: "New Recruit JSON",
}

BULLETS = "•·*-–◦▪▫○+>"
SUB_BULLETS = "◦▪▫○"


@dataclass
class Item:
    """A wargear line (a weapon, a wargear choice, an upgrade) with how many."""

    name: str
    count: int
    where: str
    group: int = 0  # items split from one comma list share a group (names may hold commas)


@dataclass
class ModelGroup:
    name: str
    count: int
    where: str
    items: list[Item] = field(default_factory=list)


@dataclass
class PastedUnit:
    name: str
    where: str
    points: int | None = None
    count: int | None = None  # "5x Intercessor Squad": the model count the line states
    models_total: int | None = None  # an "N models" bullet
    groups: list[ModelGroup] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    enhancements: list[tuple[str, str]] = field(default_factory=list)  # (name, where)
    warlord: bool = False
    label: str = ""
    attached: tuple[str, int | None, str] | None = None  # (name, 1-based #, where)


@dataclass(frozen=True)
class Problem:
    """A line (``where``, its ``text``) not understood, or a note on it: ``message`` is the
    English; ``template``, when the engine said it, the same message a page translates."""

    where: str
    text: str
    message: str
    template: Message | None = field(default=None, compare=False)


@dataclass
class PastedList:
    format: str
    name: str = ""
    header: list[tuple[str, str]] = field(default_factory=list)  # (where, text): faction...
    detachment: tuple[str, str] | None = None  # (where, name) when the format says so
    battle_size: BattleSize | None = None
    points: int | None = None
    units: list[PastedUnit] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    ignored: list[tuple[str, str]] = field(default_factory=list)  # (where, text) known no-content


class FormatRefused(ValueError):
    """The input is not a list in any recognised format, or is out of bounds."""


# -- shared helpers -------------------------------------------------------------------------

_SIZES = (
    (re.compile(r"incursion", re.I), BattleSize.INCURSION),
    (re.compile(r"strike\s*force", re.I), BattleSize.STRIKE_FORCE),
    (re.compile(r"onslaught", re.I), BattleSize.ONSLAUGHT),
)
_COUNT_NAME = re.compile(r"^(?:(\d{1,3})\s*[x×]\s+|(\d{1,3})[x×]\s*)?(.+?)$")
_POINTS = r"(\d[\d,. ]*)\s*(?:points?|pts?)"
_TRAILING_POINTS = re.compile(r"\s*[\(\[]\s*\+?\s*" + _POINTS + r"\s*[\)\]]\s*$", re.I)

# Lines that carry nothing of the list, recognised and counted (docs/formats.md).
IGNORED = (
    re.compile(r"^exported with\b", re.I),
    re.compile(r"^created with\b", re.I),
    re.compile(r"^\+*\s*total:?\s*\[?\s*[\d,. ]+\s*(?:pts?|points?)\s*\]?\s*\+*$", re.I),
    re.compile(r"^show/hide options\b", re.I),
    re.compile(r"^\+*$"),
    re.compile(r"^[=_\-]{3,}$"),
)


def battle_size_of(text: str) -> BattleSize | None:
    for pattern, size in _SIZES:
        if pattern.search(text):
            return size
    return None


def _int(text: str) -> int | None:
    digits = re.sub(r"[,. ]", "", text)
    return parse_int(digits, 0, 999_999)  # ASCII digits only: "²".isdigit() is true


def strip_points(name: str) -> str:
    return _TRAILING_POINTS.sub("", name).strip()


def count_and_name(text: str) -> tuple[int, str]:
    """``"2x Plasma pistol"``, ``"2 x Plasma pistol"`` -> (2, "Plasma pistol"); no count: 1."""
    m = _COUNT_NAME.match(text.strip())
    if not m:
        return 1, text.strip()
    count = m.group(1) or m.group(2)
    return (int(count) if count else 1), m.group(3).strip()


def _ignored(text: str) -> bool:
    return any(p.search(text) for p in IGNORED)


def _lines(text: str) -> list[str]:
    if len(text.encode("utf-8", errors="replace")) > MAX_TEXT_BYTES:
        raise FormatRefused(f"the list is larger than {MAX_TEXT_BYTES // 1000} kB")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(lines) > MAX_LINES:
        raise FormatRefused(f"the list has more than {MAX_LINES} lines")
    return lines


def _where(n: int) -> str:
    return f"line {n}"


def _split_items(text: str, where: str, group: int) -> list[Item]:
    """A comma list of items (``"Bolt pistol, 2x Plasma gun"``), each with its count."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if part:
            count, name = count_and_name(part)
            out.append(Item(strip_points(name), count, where, group))
    return out


# -- detection --------------------------------------------------------------------------------


def detect(text: str) -> str:
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return JSON_ROSTER
    if re.search(r"^\s*\+\+\s*.*\+\+\s*$", text, re.M) and re.search(
        r"^\s*\+\s+\S.*\+\s*$", text, re.M
    ):
        return ROSTER
    if re.search(r"^\s*\+\s*(FACTION KEYWORD|DETACHMENT|TOTAL ARMY POINTS)\s*:", text, re.M | re.I):
        return WTC
    if re.search(r"^\s*Char\d+\s*:", text, re.M):
        return WTC
    return APP


def parse(text: str) -> PastedList:
    """Read a pasted list in whichever recognised format it is."""
    fmt = detect(text)
    if fmt == JSON_ROSTER:
        return parse_json(text)
    lines = _lines(text)
    if fmt == ROSTER:
        return parse_roster(lines)
    if fmt == WTC:
        return parse_wtc(lines)
    return parse_app(lines)


# -- the official app's layout (and ours) ------------------------------------------------------

_UNIT_LINE = re.compile(
    r"^(?:(\d{1,3})\s*[x×]\s*)?(?P<name>.+?)(?:\s+\[(?P<label>[^\]]*)\])?\s*\(\s*"
    + _POINTS
    + r"\s*\)\s*$",
    re.I,
)
_BULLET = re.compile(
    r"^(?P<indent>\s*)(?P<mark>[" + re.escape(BULLETS) + r"])\s+(?P<body>.*\S)\s*$"
)
_ATTACHED = re.compile(
    r"^(?:attached to|leading|leads)\s*:\s*(?P<name>.+?)(?:\s*\(#(?P<n>\d{1,3})\))?$", re.I
)
_ENHANCEMENT = re.compile(r"^enhancements?\s*:\s*(?P<name>.+)$", re.I)
_MODELS = re.compile(r"^(?P<n>\d{1,3})\s+models?$", re.I)


def _is_section(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and text == text.upper() and "(" not in text and len(text) <= 60


def _unit_bullet(unit: PastedUnit, body: str) -> Item | None:
    """Apply one top-level bullet to the unit; the item it added, if any."""
    if body.casefold() == "warlord":
        unit.warlord = True
        return None
    if m := _ENHANCEMENT.match(body):
        unit.enhancements.append((strip_points(m.group("name")), ""))
        return None
    if m := _MODELS.match(body):
        unit.models_total = int(m.group("n"))
        return None
    if m := _ATTACHED.match(body):
        n = m.group("n")
        unit.attached = (m.group("name").strip(), int(n) if n else None, "")
        return None
    count, name = count_and_name(body)
    item = Item(strip_points(name), count, "")
    unit.items.append(item)
    return item


def parse_app(lines: list[str]) -> PastedList:
    out = PastedList(APP)
    unit: PastedUnit | None = None
    group: ModelGroup | None = None
    last: Item | None = None
    seen_title = False
    in_header = True
    for n, raw in enumerate(lines, 1):
        where = _where(n)
        text = raw.strip()
        if not text:
            continue
        if len(raw) > MAX_LINE:
            out.problems.append(Problem(where, raw[:80], "the line is too long"))
            continue
        if _ignored(text):
            out.ignored.append((where, text))
            continue
        bullet = _BULLET.match(raw)
        if bullet and unit is not None:
            body = bullet.group("body")
            sub = bullet.group("mark") in SUB_BULLETS or len(bullet.group("indent")) >= 4
            if not sub:
                group = None
                last = _unit_bullet(unit, body)
                _stamp(unit, where)
                continue
            if group is None:
                if last is None or not unit.items or unit.items[-1] is not last:
                    out.problems.append(Problem(where, text, "a sub-item with no model line above"))
                    continue
                unit.items.pop()
                group = ModelGroup(last.name, last.count, last.where)
                unit.groups.append(group)
            count, name = count_and_name(body)
            group.items.append(Item(strip_points(name), count, where))
            continue
        m = _UNIT_LINE.match(text)
        if m and not seen_title:
            seen_title = True
            out.name = m.group("name").strip()
            out.points = _int(m.group(4))
            continue
        if m and battle_size_of(m.group("name")) and in_header and unit is None:
            size = battle_size_of(m.group("name"))
            if m.group("name").strip().casefold() in {"incursion", "strike force", "onslaught"}:
                out.battle_size = size
                continue
        if m:
            in_header = False
            unit = PastedUnit(
                name=m.group("name").strip(),
                where=where,
                points=_int(m.group(4)),
                count=int(m.group(1)) if m.group(1) else None,
                label=(m.group("label") or "").strip(),
            )
            out.units.append(unit)
            group, last = None, None
            continue
        if _is_section(text):
            in_header = False
            unit = None
            continue
        if in_header and seen_title:
            out.header.append((where, text))
            continue
        out.problems.append(Problem(where, text, "not a unit, a bullet or a section title"))
    return out


def _stamp(unit: PastedUnit, where: str) -> None:
    """Give the pieces a bullet just added the bullet's line."""
    if unit.items and not unit.items[-1].where:
        unit.items[-1].where = where
    if unit.enhancements and not unit.enhancements[-1][1]:
        unit.enhancements[-1] = (unit.enhancements[-1][0], where)
    if unit.attached is not None and not unit.attached[2]:
        unit.attached = (unit.attached[0], unit.attached[1], where)


# -- New Recruit WTC text ---------------------------------------------------------------------

_WTC_HEAD = re.compile(r"^\+\s*(?P<key>[A-Z][A-Z ]+?)\s*:\s*(?P<value>.*)$", re.I)
_WTC_UNIT = re.compile(
    r"^(?:(?P<char>Char\d+)\s*:\s*)?(?:(?P<count>\d{1,3})\s*[x×]\s*)?(?P<name>.+?)\s*\(\s*"
    + _POINTS
    + r"\s*\)\s*:?\s*(?P<rest>.*)$",
    re.I,
)
_WITH = re.compile(r"^(?P<n>\d{1,3})\s+with\s+(?P<items>.+)$", re.I)


def _items_with_specials(
    unit: PastedUnit, text: str, where: str, group: int, target: list[Item]
) -> None:
    for item in _split_items(text, where, group):
        key = item.name.casefold()
        if key == "warlord":
            unit.warlord = True
        elif m := _ENHANCEMENT.match(item.name):
            unit.enhancements.append((strip_points(m.group("name")), where))
        else:
            target.append(item)


def parse_wtc(lines: list[str]) -> PastedList:
    out = PastedList(WTC)
    unit: PastedUnit | None = None
    chars: dict[str, PastedUnit] = {}
    pending_warlord: tuple[str, str] | None = None
    pending_enh: list[tuple[str, str, str]] = []
    group = 0
    for n, raw in enumerate(lines, 1):
        where = _where(n)
        text = raw.strip()
        if not text:
            continue
        if len(raw) > MAX_LINE:
            out.problems.append(Problem(where, raw[:80], "the line is too long"))
            continue
        if _ignored(text):
            out.ignored.append((where, text))
            continue
        if m := _WTC_HEAD.match(text):
            key, value = m.group("key").strip().upper(), m.group("value").strip()
            if key == "FACTION KEYWORD":
                out.header.append((where, value))
            elif key == "DETACHMENT":
                out.detachment = (where, strip_points(value))
            elif key in {"TOTAL ARMY POINTS", "ARMY POINTS"}:
                out.points = _int(re.sub(r"[^\d,]", "", value))
                if out.points and out.battle_size is None:
                    out.battle_size = _size_for_points(out.points)
            elif key == "WARLORD":
                pending_warlord = (value, where)
            elif key in {"ENHANCEMENT", "ENHANCEMENTS"}:
                for part in re.split(r"\)\s*,\s*", value):
                    em = re.match(r"^(?P<name>.+?)\s*\(on\s+(?P<who>.+?)\)?$", part.strip(), re.I)
                    if em:
                        pending_enh.append((strip_points(em.group("name")), em.group("who"), where))
                    elif part.strip():
                        out.problems.append(
                            Problem(where, text, "an Enhancement without its bearer")
                        )
            elif key in {"NUMBER OF UNITS", "SECONDARY", "BATTLE SIZE"}:
                if key == "BATTLE SIZE":
                    out.battle_size = battle_size_of(value)
                out.ignored.append((where, text))
            else:
                out.problems.append(Problem(where, text, "an unknown header field"))
            continue
        bullet = _BULLET.match(raw)
        if bullet and unit is not None:
            body = bullet.group("body")
            count, rest = 1, body
            if ":" in body:
                head, rest = body.split(":", 1)
                count, name = count_and_name(head)
                grp = ModelGroup(strip_points(name), count, where)
                unit.groups.append(grp)
                rest = rest.strip()
                wm = _WITH.match(rest)
                group += 1
                if wm:
                    each = int(wm.group("n"))
                    for item in _split_items(wm.group("items"), where, group):
                        item.count *= each
                        grp.items.append(item)
                else:
                    _items_with_specials(unit, rest, where, group, grp.items)
            else:
                group += 1
                _items_with_specials(unit, body, where, group, unit.items)
            continue
        if m := _WTC_UNIT.match(text):
            unit = PastedUnit(
                name=m.group("name").strip(),
                where=where,
                points=_int(m.group(4)),
                count=int(m.group("count")) if m.group("count") else None,
            )
            if m.group("char"):
                chars[m.group("char").casefold()] = unit
            group += 1
            _items_with_specials(unit, m.group("rest"), where, group, unit.items)
            out.units.append(unit)
            continue
        out.problems.append(Problem(where, text, "not a unit, a model line or a header field"))
    if pending_warlord is not None:
        who, where = pending_warlord
        target = _char(chars, out.units, who)
        if target is None:
            out.problems.append(Problem(where, who, "the Warlord names no unit of the list"))
        else:
            target.warlord = True
    for name, who, where in pending_enh:
        target = _char(chars, out.units, who)
        if target is None:
            out.problems.append(Problem(where, name, "the Enhancement's bearer is not in the list"))
        elif not any(e.casefold() == name.casefold() for e, _w in target.enhancements):
            target.enhancements.append((name, where))
    return out


def _char(chars: dict[str, PastedUnit], units: list[PastedUnit], who: str) -> PastedUnit | None:
    m = re.match(r"^\s*(Char\d+)\s*(?::|$)", who, re.I)
    if m:
        return chars.get(m.group(1).casefold())
    key = who.strip().casefold()
    return next((u for u in units if u.name.casefold() == key), None)


def _size_for_points(points: int) -> BattleSize | None:
    if points <= 1000:
        return BattleSize.INCURSION
    if points <= 2000:
        return BattleSize.STRIKE_FORCE
    if points <= 3000:
        return BattleSize.ONSLAUGHT
    return None


# -- New Recruit / BattleScribe "++ Army Roster ++" text --------------------------------------

_ROSTER_FORCE = re.compile(r"^\+\+\s*(?P<body>.*?)\s*\+\+$")
_ROSTER_SECTION = re.compile(r"^\+\s*(?P<name>[^+]+?)\s*(?:\[[^\]]*\])?\s*\+$")
_ROSTER_UNIT = re.compile(
    # a name may hold bracketed tags of the data ("Plague Lord [Crucible]", "[Legends]"); it
    # starts and ends on a non-space, so that a run of spaces is tried once, not once per
    # place the name could end (a 200 kB paste of "a<490 spaces>b" lines: 6 ms, was 290)
    r"^(?:(?P<count>\d{1,3})\s*[x×]\s*)?"
    r"(?P<name>[^:\[\s](?:[^:\[]*[^:\[\s])?(?:\s*\[[^\]:\[]{1,40}\])*?)\s*\[\s*"
    + _POINTS
    + r"\s*\]\s*:?\s*(?P<rest>.*)$",
    re.I,
)
_ROSTER_CONFIG = re.compile(r"^(?P<key>[^:]{2,40}):\s*(?P<value>.+)$")


def parse_roster(lines: list[str]) -> PastedList:
    out = PastedList(ROSTER)
    unit: PastedUnit | None = None
    section = ""
    group = 0
    for n, raw in enumerate(lines, 1):
        where = _where(n)
        text = raw.strip()
        if not text:
            continue
        if len(raw) > MAX_LINE:
            out.problems.append(Problem(where, raw[:80], "the line is too long"))
            continue
        if _ignored(text):
            out.ignored.append((where, text))
            continue
        if m := _ROSTER_FORCE.match(text):
            body = m.group("body")
            fm = re.match(r"^(?P<name>.*?)\s*\((?P<cat>[^)]*)\)\s*(?:\[(?P<pts>[^\]]*)\])?$", body)
            if fm:
                out.header.append((where, fm.group("cat").strip()))
                if fm.group("pts"):
                    out.points = _int(re.sub(r"[^\d,]", "", fm.group("pts")))
            else:
                out.ignored.append((where, text))
            continue
        if m := _ROSTER_SECTION.match(text):
            section = m.group("name").strip().casefold()
            unit = None
            continue
        if text.startswith((".", "•")):
            if unit is None:
                out.problems.append(Problem(where, text, "a model line outside a unit"))
                continue
            body = text.lstrip(".• ").strip()
            group += 1
            if ":" in body and not _ENHANCEMENT.match(body):
                head, rest = body.split(":", 1)
                count, name = count_and_name(head)
                grp = ModelGroup(strip_points(name), count, where)
                unit.groups.append(grp)
                _items_with_specials(unit, rest, where, group, grp.items)
            else:
                _items_with_specials(unit, body, where, group, unit.items)
            continue
        if section == "configuration":
            cm = _ROSTER_CONFIG.match(text)
            if cm:
                key = cm.group("key").strip().casefold()
                value = cm.group("value").strip()
                if "battle size" in key:
                    out.battle_size = battle_size_of(value)
                    if out.battle_size is None:
                        out.problems.append(Problem(where, text, "an unknown battle size"))
                elif "detachment" in key:
                    out.detachment = (where, strip_points(value))
                else:
                    out.ignored.append((where, text))
                continue
        if m := _ROSTER_UNIT.match(text):
            unit = PastedUnit(
                name=m.group("name").strip(),
                where=where,
                points=_int(m.group(3)),
                count=int(m.group("count")) if m.group("count") else None,
            )
            group += 1
            _items_with_specials(unit, m.group("rest"), where, group, unit.items)
            out.units.append(unit)
            continue
        out.problems.append(Problem(where, text, "not a unit, a model line or a section title"))
    return out


# -- New Recruit JSON (a BattleScribe roster) ---------------------------------------------------

_CONFIG_NAMES = {"battle size", "detachment", "detachment choice", "show/hide options", "game type"}


def _pts(sel: dict[str, Any]) -> int | None:
    costs = sel.get("costs")
    if isinstance(costs, list):
        for c in costs:
            if isinstance(c, dict) and str(c.get("name", "")).strip().casefold() in {
                "pts",
                "points",
            }:
                value = c.get("value")
                if isinstance(value, int | float) and 0 <= value < 1_000_000:
                    return int(value)
    return None


def _primary(sel: dict[str, Any]) -> str:
    cats = sel.get("categories")
    if isinstance(cats, list):
        for c in cats:
            if isinstance(c, dict) and c.get("primary"):
                return str(c.get("name", ""))
    return ""


def _children(sel: dict[str, Any]) -> list[dict[str, Any]]:
    kids = sel.get("selections")
    if isinstance(kids, dict):  # the XML-to-JSON shape: {"selection": [...]}
        kids = kids.get("selection")
    if isinstance(kids, dict):
        kids = [kids]
    return [k for k in kids or [] if isinstance(k, dict)] if isinstance(kids, list) else []


def _number(sel: dict[str, Any]) -> int:
    n = sel.get("number", 1)
    return n if isinstance(n, int) and 0 <= n <= 1000 else 1


def _depth_ok(value: Any, depth: int = 0) -> bool:
    if depth > MAX_JSON_DEPTH * 3:
        return False
    if isinstance(value, dict):
        return all(_depth_ok(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return all(_depth_ok(v, depth + 1) for v in value)
    return True


def parse_json(text: str) -> PastedList:
    if len(text.encode("utf-8", errors="replace")) > MAX_TEXT_BYTES * 5:
        raise FormatRefused(f"the list is larger than {MAX_TEXT_BYTES * 5 // 1000} kB")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise FormatRefused("not valid JSON") from None
    if not isinstance(data, dict) or not _depth_ok(data):
        raise FormatRefused("not a roster: a JSON object with a `roster` is expected")
    return parse_roster_json(data)


def is_roster_json(data: object) -> bool:
    return isinstance(data, dict) and isinstance(data.get("roster"), dict)


def parse_roster_json(data: dict[str, Any]) -> PastedList:
    roster = data.get("roster")
    if not isinstance(roster, dict):
        raise FormatRefused("not a roster: a JSON object with a `roster` is expected")
    out = PastedList(JSON_ROSTER, name=str(roster.get("name") or "")[:200])
    out.points = _pts(roster)
    limits = roster.get("costLimits")
    if isinstance(limits, list):
        for c in limits:
            if isinstance(c, dict) and isinstance(c.get("value"), int | float):
                out.battle_size = _size_for_points(int(c["value"]))
    forces = roster.get("forces")
    if isinstance(forces, dict):
        forces = forces.get("force")
    if isinstance(forces, dict):
        forces = [forces]
    if not isinstance(forces, list) or not forces:
        raise FormatRefused("the roster has no force")
    budget = [MAX_JSON_SELECTIONS]
    for fi, force in enumerate(forces[:10]):
        if not isinstance(force, dict):
            continue
        path = f"forces[{fi}]"
        cat = force.get("catalogueName")
        if isinstance(cat, str) and cat.strip():
            out.header.append((path, cat.strip()[:200]))
        for si, sel in enumerate(_children(force)):
            _json_selection(out, sel, f"{path}.selections[{si}]", budget)
    return out


def _json_selection(out: PastedList, sel: dict[str, Any], path: str, budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise FormatRefused(f"more than {MAX_JSON_SELECTIONS} selections")
    name = str(sel.get("name") or "").strip()[:MAX_LINE]
    key = name.casefold()
    if _primary(sel).casefold() == "configuration" or key in _CONFIG_NAMES:
        kids = _children(sel)
        choice = str(kids[0].get("name") or "").strip() if kids else ""
        if key == "battle size" or "battle size" in key:
            out.battle_size = battle_size_of(choice) or out.battle_size
        elif "detachment" in key:
            if choice:
                out.detachment = (f"{path}.selections[0]", strip_points(choice))
        else:
            out.ignored.append((path, name))
        return
    unit = PastedUnit(name=name, where=path, points=_pts(sel))
    kind = str(sel.get("type") or "")
    kids = _children(sel)
    if kind == "model":
        unit.count = _number(sel)
    for ci, kid in enumerate(kids):
        kpath = f"{path}.selections[{ci}]"
        # the models of a unit (of a one-model unit too, when its data has model types)
        if str(kid.get("type") or "") == "model":
            budget[0] -= 1
            grp = ModelGroup(str(kid.get("name") or "").strip()[:MAX_LINE], _number(kid), kpath)
            unit.groups.append(grp)
            for gi, item in enumerate(_children(kid)):
                _json_item(unit, grp.items, item, f"{kpath}.selections[{gi}]", budget)
        else:
            _json_item(unit, unit.items, kid, kpath, budget)
    out.units.append(unit)


def _json_item(
    unit: PastedUnit, target: list[Item], sel: dict[str, Any], path: str, budget: list[int]
) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise FormatRefused(f"more than {MAX_JSON_SELECTIONS} selections")
    name = str(sel.get("name") or "").strip()[:MAX_LINE]
    key = name.casefold()
    kids = _children(sel)
    if key == "warlord":
        unit.warlord = True
        return
    group = str(sel.get("group") or "").strip().casefold()
    # "Enhancements", "Headhunter Task Force Enhancements": a container of Enhancements
    container = key == "enhancement" or key.endswith("enhancements")
    # an item of such a group (New Recruit's "group"): the Enhancement itself, whatever it holds
    item = not container and group.endswith("enhancements")
    if container or item or _primary(sel).casefold().startswith("enhancement"):
        if kids and not item:
            for ci, kid in enumerate(kids):
                unit.enhancements.append(
                    (str(kid.get("name") or "").strip(), f"{path}.selections[{ci}]")
                )
        else:
            unit.enhancements.append((strip_points(name), path))
        return
    if name:
        target.append(Item(name, _number(sel), path))
    for ci, kid in enumerate(kids):
        _json_item(unit, target, kid, f"{path}.selections[{ci}]", budget)
