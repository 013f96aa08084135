"""Turn linked BattleScribe entries into catalogue values (datasheets, detachments).

One :class:`Builder` per primary catalogue walks each root unit / model entry through its
entry links, shared entries and groups, and collects: the composition (model types with their
min/max, nested groups), the profiles (Unit, Ranged/Melee Weapons, Abilities, Transport), the
keywords from categories, the points (base cost plus the cost modifiers that depend on the
number of models, evaluated for every legal unit size), the wargear options, the Leader's
Bodyguard units, and the Enhancements groups it links. Rules text is read (Leader lists,
transport capacity, invulnerable saves) but only names and numbers are kept.
"""

from __future__ import annotations

import re
from collections import Counter as Tally
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from xml.etree.ElementTree import Element

from app.catalog.bsdata.files import Document, ImportLimits
from app.catalog.bsdata.model import Context, Node, Workspace, all3, iter_modifiers
from app.catalog.bsdata.report import IssueCode, Reporter
from app.engine.dice import DiceExpr
from app.engine.errors import DiceExpressionError, ProfileError
from app.engine.wh40k10e.abilities import UnknownAbility, parse_ability
from app.engine.wh40k10e.army.catalog import (
    MAX_MODELS,
    Catalogue,
    Datasheet,
    Detachment,
    Enhancement,
    KeywordRule,
    ModelProfile,
    ModelType,
    PointsTier,
    WargearChoice,
    WargearOption,
    Weapon,
    WeaponKind,
    WeaponProfile,
    slug,
)
from app.engine.wh40k10e.army.names import name_key

__all__ = ["Builder", "WorkLimitExceeded", "build_catalogue"]


class WorkLimitExceeded(Exception):
    """The data needs more work than :class:`ImportLimits` allows (a hostile or broken file)."""


INF = 10**9
FACTION_PREFIX = "Faction: "
# Categories that are BattleScribe plumbing, not keywords of a datasheet.
NON_KEYWORDS = frozenset(
    {"configuration", "reference", "unit", "order of battle", "allied units", "crusade relic"}
)
UNIT_PROFILE = "unit"
ABILITIES_PROFILE = "abilities"
# Groups and entries that only serve Crusade bookkeeping (BSData conventions).
SKIPPED_NAMES = frozenset(
    {"crusade", "weapon modifications", "weapon upgrades", "battle scars", "battle honours"}
)
TRANSPORT_PROFILE = "transport"
RANGED_PROFILE = "ranged weapons"
MELEE_PROFILE = "melee weapons"

_INT = re.compile(r"^\s*(-?\d+)\s*$")
_PLUS = re.compile(r"^\s*(\d+)\s*\+?\s*$")
_INCHES = re.compile(r'^\s*(\d+)\s*(?:"|”|″|in(?:ches)?)?\s*$')
_CAPACITY = re.compile(r"capacity of (\d+)", re.IGNORECASE)
_FIRST_INT = re.compile(r"\b(\d+)\b")
_INVULN = re.compile(r"(\d)\s*\+")
_TWO_LEADERS = re.compile(r"attach up to (?:two|2) Leader", re.IGNORECASE)
_STARTING_STRENGTH = re.compile(r"Starting Strength of (\d+)", re.IGNORECASE)
_MARKUP = re.compile(r"[\^*]{2,}")
_BULLET = "■•▪●-–"


def _clean(text: str) -> str:
    """Strip BattleScribe markup (``^^**KEYWORD**^^``) and non-breaking spaces."""
    return " ".join(_MARKUP.sub("", text.replace("\xa0", " ")).split())


def _profile_kind(profile: Element, ws: Workspace) -> str:
    name = profile.get("typeName")
    if not name:
        type_id = profile.get("typeId") or ""
        for d in ws.docs.values():
            found = d.ids.get(type_id)
            if found is not None and found.tag == "profileType":
                name = found.get("name")
                break
    return (name or "").strip().lower()


def _characteristics(profile: Element) -> dict[str, str]:
    out: dict[str, str] = {}
    box = profile.find("characteristics")
    if box is not None:
        for c in box.findall("characteristic"):
            out[(c.get("name") or "").strip().upper()] = (c.text or "").strip()
    return out


@dataclass(slots=True)
class _Leaf:
    """A model type of the composition being built."""

    node: Node
    name: str
    min: int
    max: int
    base_cost: float = 0.0
    cost_mods: list[tuple[Element, tuple[Element, ...], frozenset[str]]] = field(
        default_factory=list
    )
    profile: str = ""
    default_wargear: list[str] = field(default_factory=list)
    invulnerable: int | None = None


@dataclass(slots=True)
class _Group:
    """A group of the composition. ``alternative``: its members are fixed packages of models
    ("1 Runtherd and 10 Gretchin" or "2 Runtherds and 20 Gretchin") of which one is taken."""

    name: str
    ids: frozenset[str]
    min: int
    max: int
    children: list[_Leaf | _Group] = field(default_factory=list)
    alternative: bool = False


def _bounds(item: _Leaf | _Group) -> tuple[int, int]:
    if isinstance(item, _Leaf):
        return item.min, item.max
    if not item.children:
        return 0, 0
    bounds = [_bounds(c) for c in item.children]
    if item.alternative:
        lo = min(b[0] for b in bounds) if item.min >= 1 else 0
        return lo, max(b[1] for b in bounds)
    lo = sum(b[0] for b in bounds)
    hi = sum(min(b[1], INF) for b in bounds)
    return max(item.min, lo), min(item.max, hi)


def _fill(item: _Leaf | _Group, n: int, out: dict[int, int]) -> bool:
    """Spread ``n`` models over ``item``: every minimum first, then the most flexible model
    type (the usual "more of the basic trooper") takes the rest. False if ``n`` models cannot
    be arranged (e.g. 15 Gretchin when the unit is 11 or 22)."""
    if isinstance(item, _Leaf):
        out[id(item)] = out.get(id(item), 0) + n
        return item.min <= n <= item.max
    if item.alternative:
        if n == 0:
            return item.min == 0
        for kid in item.children:
            lo, hi = _bounds(kid)
            if lo <= n <= hi:
                trial: dict[int, int] = {}
                if _fill(kid, n, trial):
                    for k, v in trial.items():
                        out[k] = out.get(k, 0) + v
                    return True
        return False
    kids = item.children
    bounds = [_bounds(k) for k in kids]
    alloc = [b[0] for b in bounds]
    rest = n - sum(alloc)
    if rest < 0:
        return False
    order = sorted(range(len(kids)), key=lambda i: (-(bounds[i][1] - bounds[i][0]), i))
    for i in order:
        if rest <= 0:
            break
        take = min(rest, bounds[i][1] - bounds[i][0])
        alloc[i] += take
        rest -= take
    ok = rest == 0
    for kid, count in zip(kids, alloc, strict=True):
        ok = _fill(kid, count, out) and ok
    return ok


def _leaves(item: _Leaf | _Group) -> Iterator[_Leaf]:
    if isinstance(item, _Leaf):
        yield item
    else:
        for c in item.children:
            yield from _leaves(c)


def _groups(item: _Leaf | _Group) -> Iterator[_Group]:
    if isinstance(item, _Group):
        yield item
        for c in item.children:
            yield from _groups(c)


@dataclass(slots=True)
class _Sheet:
    """What the walk of one datasheet collects."""

    root: Node
    comp: _Group
    leaves: list[_Leaf] = field(default_factory=list)
    category_ids: list[str] = field(default_factory=list)
    weapons: dict[str, Weapon] = field(default_factory=dict)
    abilities: list[str] = field(default_factory=list)
    profiles: dict[str, ModelProfile] = field(default_factory=dict)
    invulnerable: int | None = None
    leader_text: str | None = None
    transport: int | None = None
    two_leaders_from: int | None = None
    options: list[WargearOption] = field(default_factory=list)


@dataclass(slots=True)
class _Choice:
    name: str
    weapons: list[str]
    points: int
    max_per_unit: int | None


class Builder:
    """Builds the catalogue of one primary (non-library) catalogue document."""

    def __init__(
        self, ws: Workspace, primary: Document, reporter: Reporter, limits: ImportLimits
    ) -> None:
        self.ws = ws
        self.primary = primary
        self.report = reporter
        self.limits = limits
        self.ctx = Context(primary.id, ws.army_force_id, frozenset(ws.force_names))
        self._weapons: dict[tuple[str, str], Weapon | None] = {}
        self._unresolved: set[tuple[str, str]] = set()
        self.enhancement_groups: dict[tuple[str, str], Node] = {}
        self.steps = 0
        self.sheet_steps = 0
        self._root_scopes: frozenset[str] = frozenset()  # ids of the datasheet being built
        self.hidden_detachment_ids: set[str] = set()
        # Which datasheets (by id) link each Enhancements group.
        self.enhancement_bearers: dict[tuple[str, str], set[str]] = {}

    # -- generic access ---------------------------------------------------------------

    def start_sheet(self, root: Node) -> None:
        self._root_scopes = root.ids
        self.sheet_steps = 0

    def _step(self) -> None:
        """Count one unit of work: a hostile file (links fanning out to the same entries many
        times over) cannot make an import run for long."""
        self.steps += 1
        self.sheet_steps += 1
        if self.steps > self.limits.max_steps or self.sheet_steps > self.limits.max_steps_per_sheet:
            raise WorkLimitExceeded

    def children(self, node: Node) -> Iterator[Node]:
        self._step()
        for holder, doc in node.holders():
            for box_name, tag in (
                ("selectionEntries", "selectionEntry"),
                ("selectionEntryGroups", "selectionEntryGroup"),
            ):
                box = holder.find(box_name)
                if box is not None:
                    for child in box.findall(tag):
                        self._step()
                        yield Node(child, doc)
            box = holder.find("entryLinks")
            if box is None:
                continue
            for link in box.findall("entryLink"):
                self._step()
                target = self.resolve(link, doc)
                if target is None:
                    continue
                elem, tdoc = target
                if elem.tag not in ("selectionEntry", "selectionEntryGroup"):
                    continue
                yield Node(elem, tdoc, link, doc)

    def resolve(self, link: Element, doc: Document) -> tuple[Element, Document] | None:
        target_id = link.get("targetId") or ""
        found = self.ws.resolve(target_id, doc)
        if found is None:
            key = (doc.id, target_id)
            if key not in self._unresolved:
                self._unresolved.add(key)
                self.report.warning(
                    IssueCode.UNRESOLVED_LINK,
                    f"link {link.get('name') or ''!r} points to {target_id!r}, which is in none "
                    "of the uploaded files (is a linked catalogue missing?)",
                    file=doc.filename,
                    entry=link.get("name") or None,
                    target=target_id,
                )
        return found

    def applies(
        self,
        modifier: Element,
        groups: tuple[Element, ...],
        self_ids: frozenset[str],
        ctx: Context | None = None,
    ) -> bool | None:
        c = ctx or self.ctx
        return all3(
            [self.ws.conditions_of(g, c, self_ids) for g in groups]
            + [self.ws.conditions_of(modifier, c, self_ids)]
        )

    def _hidden_elem(self, elems: list[Element], self_ids: frozenset[str]) -> bool:
        state = any(e.get("hidden") == "true" for e in elems)
        for e in elems:
            for m, groups in iter_modifiers(e):
                if m.get("field") != "hidden" or m.get("type") != "set":
                    continue
                if self.applies(m, groups, self_ids) is True:
                    state = m.get("value") == "true"
        return state

    def hidden(self, node: Node) -> bool:
        return self._hidden_elem([h for h, _ in node.holders()], node.ids)

    def constraint(
        self, node: Node, kind: str, scopes: tuple[str, ...] = ("parent",)
    ) -> int | None:
        """The ``kind`` ("min"/"max") selections constraint of ``node`` in one of ``scopes``."""
        found: int | None = None
        for c in node.constraints():
            if c.get("type") != kind or c.get("field") != "selections":
                continue
            if (c.get("scope") or "") not in scopes:
                continue
            try:
                value = int(float(c.get("value") or "0"))
            except ValueError:
                continue
            found = (
                value
                if found is None
                else (max(found, value) if kind == "min" else min(found, value))
            )
        return found

    def pts(self, node: Node) -> float:
        total = 0.0
        for c in node.costs():
            if self.ws.is_pts(c):
                try:
                    total += float(c.get("value") or "0")
                except ValueError:
                    continue
        return total

    def cost_modifiers(
        self, node: Node
    ) -> list[tuple[Element, tuple[Element, ...], frozenset[str]]]:
        out = []
        for m, groups in node.modifiers():
            if self.ws.is_pts(m.get("field") or ""):
                out.append((m, groups, node.ids))
        return out

    def apply_cost(
        self,
        base: float,
        mods: list[tuple[Element, tuple[Element, ...], frozenset[str]]],
        ctx: Context,
    ) -> float:
        value = base
        for m, groups, ids in mods:
            if self.applies(m, groups, ids, ctx) is not True:
                continue
            times = self.ws.repeat_times(m, ctx, ids)
            if times is None or times is False:
                continue
            try:
                amount = float(m.get("value") or "0")
            except ValueError:
                continue
            kind = m.get("type")
            if kind == "set":
                value = amount
            elif kind == "increment":
                value += amount * int(times)
            elif kind == "decrement":
                value -= amount * int(times)
        return max(value, 0.0)

    def category_name(self, cid: str, link: Element | None = None) -> str:
        return (
            self.ws.category_names.get(cid) or (link.get("name") if link is not None else "") or ""
        )

    def node_categories(self, node: Node) -> list[str]:
        ids = list(node.category_ids())
        for m, groups in node.modifiers():
            if m.get("field") != "category" or m.get("type") not in ("add", "remove"):
                continue
            if self.applies(m, groups, node.ids) is not True:
                continue
            value = m.get("value") or ""
            if m.get("type") == "add" and value not in ids:
                ids.append(value)
            elif m.get("type") == "remove" and value in ids:
                ids.remove(value)
        return ids

    # -- profiles and rules ------------------------------------------------------------

    def info(
        self, holders: list[tuple[Element, Document]], depth: int = 0
    ) -> Iterator[tuple[str, Element, Document, str]]:
        """("profile"|"rule", element, document, display name) of the holders' profiles, rules,
        info links and info groups, skipping hidden ones."""
        if depth > 8:
            return
        self._step()
        for holder, doc in holders:
            for box_name, tag, kind in (
                ("profiles", "profile", "profile"),
                ("rules", "rule", "rule"),
            ):
                box = holder.find(box_name)
                if box is not None:
                    for el in box.findall(tag):
                        if not self._hidden_elem([el], frozenset({el.get("id") or ""})):
                            yield kind, el, doc, el.get("name") or ""
            groups = holder.find("infoGroups")
            if groups is not None:
                for g in groups.findall("infoGroup"):
                    if not self._hidden_elem([g], frozenset()):
                        yield from self.info([(g, doc)], depth + 1)
            links = holder.find("infoLinks")
            if links is None:
                continue
            for link in links.findall("infoLink"):
                found = self.resolve(link, doc)
                if found is None:
                    continue
                target, tdoc = found
                if self._hidden_elem([target, link], frozenset()):
                    continue
                name = self._link_name(link, target.get("name") or "")
                if target.tag == "infoGroup":
                    yield from self.info([(target, tdoc)], depth + 1)
                elif target.tag == "profile":
                    yield "profile", target, tdoc, name
                elif target.tag == "rule":
                    yield "rule", target, tdoc, name

    def _link_name(self, link: Element, name: str) -> str:
        for m, groups in iter_modifiers(link):
            if m.get("field") != "name" or self.applies(m, groups, frozenset()) is not True:
                continue
            value = (m.get("value") or "").replace("\xa0", " ")
            if m.get("type") == "set":
                name = value
            elif m.get("type") == "append":
                join = (m.get("join") or " ").replace("\xa0", " ")
                name = f"{name}{join}{value}"
        return name.strip()

    def profiles_of(self, node: Node) -> list[tuple[str, Element, Document, str]]:
        return list(self.info(list(node.holders())))

    # -- weapons -----------------------------------------------------------------------

    def weapon_of(self, node: Node) -> Weapon | None:
        key = (node.doc.id, node.id)
        if key in self._weapons:
            return self._weapons[key]
        profiles: list[WeaponProfile] = []
        for kind, el, doc, name in self.profiles_of(node):
            if kind != "profile":
                continue
            pkind = _profile_kind(el, self.ws)
            if pkind not in (RANGED_PROFILE, MELEE_PROFILE):
                continue
            wp = self.weapon_profile(el, doc, name, pkind, node.name)
            if wp is not None and wp not in profiles:
                profiles.append(wp)
        weapon = (
            Weapon(node.name.strip(), tuple(profiles)) if profiles and node.name.strip() else None
        )
        self._weapons[key] = weapon
        return weapon

    def weapon_profile(
        self, el: Element, doc: Document, name: str, pkind: str, entry: str
    ) -> WeaponProfile | None:
        ch = _characteristics(el)
        display = name.replace("➤", "").strip() or entry
        where = f"{entry} / {display}"
        range_text = ch.get("RANGE", "")
        is_melee = pkind == MELEE_PROFILE or range_text.strip().lower() == "melee"
        rng: int | None = None
        if not is_melee:
            m = _INCHES.match(range_text)
            if m:
                rng = int(m.group(1))
            else:
                self._bad(doc, where, "Range", range_text)
        skill_text = ch.get("WS" if is_melee else "BS", ch.get("BS", ch.get("WS", "")))
        skill: int | None = None
        if skill_text.upper() not in ("N/A", "-", ""):
            m = _PLUS.match(skill_text)
            if m and 2 <= int(m.group(1)) <= 6:
                skill = int(m.group(1))
            else:
                self._bad(doc, where, "BS/WS", skill_text)
        attacks = self._dice(ch.get("A", ""), doc, where, "A")
        damage = self._dice(ch.get("D", ""), doc, where, "D")
        strength = self._dice(ch.get("S", ""), doc, where, "S")
        ap_text = ch.get("AP", "0").strip()
        ap: int | None = 0
        if ap_text not in ("", "-", "0"):
            m = _INT.match(ap_text.replace("−", "-"))
            if m and -10 <= int(m.group(1)) <= 0:
                ap = int(m.group(1))
            else:
                ap = None
                self._bad(doc, where, "AP", ap_text)
        if attacks is None or damage is None or strength is None:
            return None
        mapped: list[str] = []
        unmapped: list[str] = []
        for raw in (ch.get("KEYWORDS", "") or "").split(","):
            text = " ".join(raw.replace("\xa0", " ").split())
            if not text or text == "-":
                continue
            try:
                canonical = str(parse_ability(text))
            except UnknownAbility:
                if text not in unmapped:
                    unmapped.append(text)
                self.report.grouped(IssueCode.UNMAPPED_ABILITY, text, display, doc.filename)
                continue
            if canonical not in mapped:
                mapped.append(canonical)
        try:
            return WeaponProfile(
                name=display,
                kind=WeaponKind.MELEE if is_melee else WeaponKind.RANGED,
                range=rng,
                attacks=attacks,
                skill=skill,
                strength=strength,
                ap=ap,
                damage=damage,
                abilities=tuple(mapped),
                unmapped_abilities=tuple(unmapped),
            )
        except ProfileError as exc:
            self._bad(doc, where, exc.field, str(exc))
            return None

    def _dice(self, text: str, doc: Document, where: str, field_name: str) -> str | None:
        cleaned = "".join(text.split()).upper()
        if not cleaned or len(cleaned) > 20:
            self._bad(doc, where, field_name, text)
            return None
        if cleaned == "*":
            return cleaned
        try:
            return str(DiceExpr.parse(cleaned))
        except DiceExpressionError:
            self._bad(doc, where, field_name, text)
            return cleaned

    def _bad(self, doc: Document, where: str, field_name: str, text: str) -> None:
        self.report.warning(
            IssueCode.BAD_CHARACTERISTIC,
            f"{where}: characteristic {field_name} = {text!r} is not a value the app can use",
            file=doc.filename,
            entry=where,
            characteristic=field_name,
            text=text,
        )

    # -- model profiles and abilities --------------------------------------------------

    def collect_profiles(self, node: Node, sheet: _Sheet, leaf: _Leaf | None) -> None:
        """Read the Unit / Abilities / Transport profiles and rules of a unit or model node."""
        for kind, el, doc, name in self.profiles_of(node):
            if kind == "rule":
                self._ability(sheet, name)
                continue
            pkind = _profile_kind(el, self.ws)
            if pkind == UNIT_PROFILE:
                mp = self.model_profile(el, doc, name, sheet.root.name)
                if mp is not None:
                    sheet.profiles.setdefault(mp.name, mp)
                    if leaf is not None and not leaf.profile:
                        leaf.profile = mp.name
            elif pkind == ABILITIES_PROFILE:
                text = " ".join(_characteristics(el).values())
                lowered = name.lower()
                if lowered.startswith("invulnerable save"):
                    self._invulnerable(sheet, leaf, name, text)
                elif lowered == "leader":
                    sheet.leader_text = text
                    self._ability(sheet, "Leader")
                elif lowered == "transport":
                    self._transport(sheet, text)
                    self._ability(sheet, name)
                else:
                    self._ability(sheet, name)
                    if _TWO_LEADERS.search(text):
                        # "with a Starting Strength of N, up to two Leaders": keep N only
                        size = _STARTING_STRENGTH.search(text)
                        sheet.two_leaders_from = int(size.group(1)) if size else 1
            elif pkind == TRANSPORT_PROFILE:
                self._transport(sheet, " ".join(_characteristics(el).values()))

    def _transport(self, sheet: _Sheet, text: str) -> None:
        """Transport capacity: the number in "a transport capacity of N ..." (the rest of the
        text, which models may embark, is rules text and is not kept)."""
        m = _CAPACITY.search(text) or _FIRST_INT.search(text)
        if m and sheet.transport is None:
            sheet.transport = int(m.group(1))

    def _ability(self, sheet: _Sheet, name: str) -> None:
        name = " ".join(name.replace("\xa0", " ").split())
        if name and name not in sheet.abilities and len(name) <= 200:
            sheet.abilities.append(name)

    def _invulnerable(self, sheet: _Sheet, leaf: _Leaf | None, name: str, text: str) -> None:
        """An invulnerable save ability: on a model entry it is that model type's, else the
        whole unit's."""
        m = _INVULN.search(name) or _INVULN.search(text)
        if not m:
            return
        value = int(m.group(1))
        if not 2 <= value <= 6:
            return
        if leaf is not None:
            if leaf.invulnerable is None or value < leaf.invulnerable:
                leaf.invulnerable = value
        elif sheet.invulnerable is None or value < sheet.invulnerable:
            sheet.invulnerable = value
        lowered = f"{name} {text}".lower()
        if "*" in lowered or any(w in lowered for w in ("against", "excluding", "while", " if ")):
            self.report.warning(
                IssueCode.CONDITIONAL_INVULNERABLE,
                f"{sheet.root.name}: the {value}+ invulnerable save has a condition in the data; "
                "it is recorded as a plain invulnerable save",
                file=sheet.root.doc.filename,
                entry=sheet.root.name,
                value=value,
            )

    def model_profile(
        self, el: Element, doc: Document, name: str, entry: str
    ) -> ModelProfile | None:
        ch = _characteristics(el)
        where = f"{entry} / {name}"

        def number(key: str, plus: bool) -> int | None:
            text = ch.get(key, "").strip()
            if text in ("", "-", "*", "N/A"):
                return None
            m = (_PLUS if plus else _INT).match(text)
            if not m:
                self._bad(doc, where, key, text)
                return None
            return int(m.group(1))

        toughness = number("T", plus=False)
        wounds = number("W", plus=False)
        if toughness is None or wounds is None:
            self._bad(doc, where, "T/W", f"T={ch.get('T', '')} W={ch.get('W', '')}")
            return None
        try:
            return ModelProfile(
                name=name.strip() or entry,
                movement=ch.get("M", "").strip()[:20] or "-",
                toughness=toughness,
                save=number("SV", plus=True),
                wounds=wounds,
                leadership=number("LD", plus=True),
                objective_control=number("OC", plus=False),
            )
        except ProfileError as exc:
            self._bad(doc, where, exc.field, str(exc))
            return None

    # -- the walk ----------------------------------------------------------------------

    def datasheet(self, root: Node) -> Datasheet | None:
        kind = root.type
        comp = _Group(root.name, root.ids, 0, INF)
        sheet = _Sheet(root=root, comp=comp)
        sheet.category_ids.extend(self.node_categories(root))
        self.collect_profiles(root, sheet, None)
        path = {(root.doc.id, root.id)}
        if kind == "model":
            leaf = _Leaf(root, root.name, 1, 1, self.pts(root), self.cost_modifiers(root))
            comp.children.append(leaf)
            sheet.leaves.append(leaf)
            leaf.profile = next(iter(sheet.profiles), "")
            for child in self.children(root):
                self.walk(child, sheet, leaf, comp, 1, path, in_choice=False)
            root_cost, root_mods = 0.0, []
        else:
            for child in self.children(root):
                self.walk(child, sheet, None, comp, 1, path, in_choice=False)
            root_cost, root_mods = self.pts(root), self.cost_modifiers(root)
        return self.finish(sheet, root_cost, root_mods)

    def walk(
        self,
        node: Node,
        sheet: _Sheet,
        model: _Leaf | None,
        comp: _Group,
        depth: int,
        path: set[tuple[str, str]],
        *,
        in_choice: bool,
    ) -> None:
        """Walk one entry or group. ``in_choice``: inside an item of a wargear option (its
        mandatory parts belong to that item, not to the model's default wargear)."""
        if depth > self.limits.max_depth:
            self.report.warning(
                IssueCode.TOO_DEEP,
                f"{sheet.root.name}: entries nested deeper than {self.limits.max_depth} levels "
                "were not read",
                file=node.doc.filename,
                entry=sheet.root.name,
            )
            return
        key = (node.doc.id, node.id)
        if key in path:
            self.report.warning(
                IssueCode.LINK_CYCLE,
                f"{sheet.root.name}: entry {node.name!r} links back to itself; the loop was cut",
                file=node.doc.filename,
                entry=sheet.root.name,
            )
            return
        if self.hidden(node):
            return
        path = path | {key}
        name = node.name.strip()
        if name_key(name) in SKIPPED_NAMES:
            return
        if node.is_group:
            if name_key(name).endswith("enhancements"):
                self.enhancement_groups.setdefault(key, Node(node.elem, node.doc))
                self.enhancement_bearers.setdefault(key, set()).add(sheet.root.id)
                return
            members = [m for m in self.children(node) if not self.hidden(m)]
            if any(self._has_models(m, 0) for m in members):
                packages = [m for m in members if not m.is_group and m.type != "model"]
                group = _Group(
                    name,
                    node.ids,
                    self.constraint(node, "min") or 0,
                    self._max(node),
                    alternative=bool(packages)
                    and len(packages) == len(members)
                    and self._max(node) <= 1,
                )
                comp.children.append(group)
                for m in members:
                    if m in packages and self._has_models(m, 0):
                        # A fixed package of models: its own group inside the composition.
                        package = _Group(m.name.strip(), m.ids, 0, INF)
                        group.children.append(package)
                        for child in self.children(m):
                            self.walk(
                                child,
                                sheet,
                                model,
                                package,
                                depth + 2,
                                path | {key},
                                in_choice=in_choice,
                            )
                        continue
                    self.walk(m, sheet, model, group, depth + 1, path, in_choice=in_choice)
                return
            if self.constraint(node, "min") is None and self.constraint(node, "max") is None:
                # A plain container (e.g. "Wargear"): its entries stand on their own.
                for m in members:
                    self.walk(m, sheet, model, comp, depth + 1, path, in_choice=in_choice)
                return
            self.option(node, members, sheet, model)
            default_id = node.default_selection_id()
            for m in members:
                self.walk(m, sheet, model, comp, depth + 1, path, in_choice=True)
                if (
                    model is not None
                    and not in_choice
                    and default_id is not None
                    and default_id in m.ids
                ):
                    model.default_wargear.extend(self.gives(m, depth))
            return
        if node.type == "model":
            leaf = _Leaf(
                node,
                name,
                self.constraint(node, "min") or 0,
                self._max(node),
                self.pts(node),
                self.cost_modifiers(node),
            )
            comp.children.append(leaf)
            sheet.leaves.append(leaf)
            for cid in self.node_categories(node):
                if cid not in sheet.category_ids:
                    sheet.category_ids.append(cid)
            self.collect_profiles(node, sheet, leaf)
            for child in self.children(node):
                self.walk(child, sheet, leaf, comp, depth + 1, path, in_choice=False)
            return
        if name_key(name) == "warlord":
            return
        weapon = self.weapon_of(node)
        if weapon is not None:
            sheet.weapons.setdefault(name_key(weapon.name), weapon)
        mandatory = (self.constraint(node, "min") or 0) >= 1
        if not in_choice:
            if mandatory and model is not None:
                model.default_wargear.extend(self.gives(node, depth))
                model.base_cost += self.pts(node)
            elif not mandatory and self._max(node) > 0:
                self.option_single(node, sheet, model, min(self._max(node), MAX_MODELS))
        for child in self.children(node):
            self.walk(child, sheet, model, comp, depth + 1, path, in_choice=in_choice)

    def _max(self, node: Node) -> int:
        value = self.constraint(node, "max")
        return INF if value is None or value < 0 else value

    def _has_models(self, node: Node, depth: int) -> bool:
        """Whether ``node`` is, or holds, a model entry."""
        if depth > 6:
            return False
        if not node.is_group and node.type == "model":
            return True
        return any(self._has_models(m, depth + 1) for m in self.children(node))

    def gives(self, node: Node, depth: int) -> list[str]:
        """Weapon names an entry gives (itself, or the weapons inside it), else its name."""
        if depth > self.limits.max_depth:
            return []
        weapon = self.weapon_of(node)
        if weapon is not None:
            return [weapon.name]
        out: list[str] = []
        for child in self.children(node):
            if self.hidden(child):
                continue
            if not child.is_group:
                out.extend(self.gives(child, depth + 1))
                continue
            default_id = child.default_selection_id()
            for m in self.children(child):
                if default_id is not None and default_id in m.ids and not self.hidden(m):
                    out.extend(self.gives(m, depth + 1))
        return out or [node.name.strip()]

    def choice(self, node: Node) -> _Choice:
        cap = None
        for c in node.constraints():
            if c.get("type") == "max" and c.get("field") == "selections":
                scope = c.get("scope") or ""
                if scope == "unit" or scope in self._root_scopes:
                    try:
                        value = int(float(c.get("value") or "0"))
                    except ValueError:
                        continue
                    cap = value if cap is None else min(cap, value)
        return _Choice(node.name.strip(), self.gives(node, 0), int(self.pts(node)), cap)

    def option(self, group: Node, members: list[Node], sheet: _Sheet, model: _Leaf | None) -> None:
        choices: list[WargearChoice] = []
        for m in self._flatten(members, 0):
            c = self.choice(m)
            if c.name and all(name_key(x.name) != name_key(c.name) for x in choices):
                choices.append(
                    WargearChoice(
                        c.name[:200], tuple(w[:200] for w in c.weapons), c.points, c.max_per_unit
                    )
                )
        if not choices:
            return
        lo = self.constraint(group, "min") or 0
        hi = min(self._max(group), MAX_MODELS)
        if hi == 0:
            return
        default_id = group.default_selection_id()
        default = next(
            (m.name.strip() for m in members if default_id and default_id in m.ids), None
        )
        sheet.options.append(
            WargearOption(
                name=(group.name.strip() or "Wargear")[:200],
                model=model.name[:200] if model else "",
                choices=tuple(choices),
                min=min(lo, hi),
                max=hi,
                default=default[:200] if default else None,
            )
        )

    def _flatten(self, members: list[Node], depth: int) -> Iterator[Node]:
        for m in members:
            if m.is_group:
                if depth < 4:
                    yield from self._flatten(
                        [x for x in self.children(m) if not self.hidden(x)], depth + 1
                    )
            elif name_key(m.name) != "warlord":
                yield m

    def option_single(self, node: Node, sheet: _Sheet, model: _Leaf | None, limit: int) -> None:
        if not node.name.strip():
            return
        c = self.choice(node)
        if not self._worth_offering(node):
            return
        sheet.options.append(
            WargearOption(
                name=c.name[:200],
                model=model.name[:200] if model else "",
                choices=(WargearChoice(c.name[:200], tuple(c.weapons), c.points, c.max_per_unit),),
                min=0,
                max=max(1, min(limit, MAX_MODELS)),
            )
        )

    def _worth_offering(self, node: Node) -> bool:
        """An optional entry is a wargear option if it is, or holds, a weapon or has a cost or
        a profile (skips empty bookkeeping entries)."""
        if self.weapon_of(node) is not None or self.pts(node) > 0:
            return True
        if any(True for _ in self.profiles_of(node)):
            return True
        return any(not c.is_group and self.weapon_of(c) is not None for c in self.children(node))

    # -- finishing a datasheet ----------------------------------------------------------

    def finish(
        self,
        sheet: _Sheet,
        root_cost: float,
        root_mods: list[tuple[Element, tuple[Element, ...], frozenset[str]]],
    ) -> Datasheet | None:
        root = sheet.root
        file = root.doc.filename
        if not sheet.leaves:
            # A unit without model entries: one model of the unit's own profile.
            leaf = _Leaf(root, root.name, 1, 1)
            leaf.profile = next(iter(sheet.profiles), "")
            sheet.comp.children.append(leaf)
            sheet.leaves.append(leaf)
        lo, hi = _bounds(sheet.comp)
        if hi >= INF or hi > MAX_MODELS:
            self.report.warning(
                IssueCode.NO_UNIT_SIZE,
                f"{root.name}: the data gives no maximum unit size; the minimum is used",
                file=file,
                entry=root.name,
            )
            hi = max(lo, 1)
        if lo < 1:
            lo = 1
        if hi < lo:
            self.report.warning(
                IssueCode.DATASHEET_SKIPPED,
                f"{root.name}: its composition is contradictory (min {lo} > max {hi}); skipped",
                file=file,
                entry=root.name,
            )
            return None

        # Points for every legal size, compressed into tiers.
        leaf_ids: dict[int, frozenset[str]] = {id(lf): lf.node.ids for lf in sheet.leaves}
        groups = list(_groups(sheet.comp))
        categories_of = {id(lf): frozenset(self.node_categories(lf.node)) for lf in sheet.leaves}
        tiers: list[PointsTier] = []
        for n in range(lo, hi + 1):
            counts: dict[int, int] = {}
            if not _fill(sheet.comp, n, counts):
                continue

            def counter(
                scope: str, child: str, counts: dict[int, int] = counts, n: int = n
            ) -> float | None:
                if child in ("model", ""):
                    return float(n)
                total = 0
                hit = False
                for lf in sheet.leaves:
                    if child in leaf_ids[id(lf)] or child in categories_of[id(lf)]:
                        total += counts.get(id(lf), 0)
                        hit = True
                if hit:
                    return float(total)
                for g in groups:
                    if child in g.ids:
                        return float(sum(counts.get(id(x), 0) for x in _leaves(g)))
                return None

            ctx = self.ctx.with_counter(counter)
            points = self.apply_cost(root_cost, root_mods, ctx)
            for lf in sheet.leaves:
                per = self.apply_cost(lf.base_cost, lf.cost_mods, ctx)
                points += per * counts.get(id(lf), 0)
            value = min(round(points), 10_000)
            if tiers and tiers[-1].points == value and tiers[-1].max_models == n - 1:
                tiers[-1] = PointsTier(tiers[-1].min_models, n, value)
            else:
                tiers.append(PointsTier(n, n, value))

        if not tiers:
            self.report.warning(
                IssueCode.DATASHEET_SKIPPED,
                f"{root.name}: no unit size between {lo} and {hi} fits its composition; skipped",
                file=file,
                entry=root.name,
            )
            return None
        lo, hi = tiers[0].min_models, tiers[-1].max_models

        # Keywords.
        keywords: list[str] = []
        factions: list[str] = []
        links = {c.get("targetId") or "": c for c in root.category_links()}
        for cid in sheet.category_ids:
            cname = self.category_name(cid, links.get(cid)).strip()
            if not cname:
                continue
            if cname.startswith(FACTION_PREFIX):
                fname = cname[len(FACTION_PREFIX) :].strip()
                if fname and fname not in factions:
                    factions.append(fname)
            elif name_key(cname) not in NON_KEYWORDS and cname not in keywords:
                keywords.append(cname)
        kw_keys = {name_key(k) for k in keywords}

        # Model types.
        models: list[ModelType] = []
        by_name: dict[str, int] = {}
        for lf in sheet.leaves:
            mname = lf.name or root.name
            seen_at = by_name.get(name_key(mname))
            if seen_at is not None:
                # The same model type in several packages ("5 Veterans" / "10 Veterans").
                prev = models[seen_at]
                models[seen_at] = replace(
                    prev, min=min(prev.min, lf.min, hi), max=max(prev.max, min(lf.max, hi))
                )
                continue
            by_name[name_key(mname)] = len(models)
            profile = lf.profile or (next(iter(sheet.profiles)) if len(sheet.profiles) == 1 else "")
            per_model = self.apply_cost(lf.base_cost, lf.cost_mods, self.ctx)
            default = tuple(dict.fromkeys(w[:200] for w in lf.default_wargear))
            models.append(
                ModelType(
                    name=mname[:200],
                    min=min(lf.min, hi),
                    max=min(lf.max, hi),
                    profile=profile,
                    points=min(int(per_model), 10_000)
                    if lf is not sheet.leaves[0] or root.type != "model"
                    else 0,
                    default_wargear=default,
                )
            )
        if not sheet.profiles:
            self.report.warning(
                IssueCode.NO_PROFILE,
                f"{root.name}: no Unit profile (M, T, Sv, W, Ld, OC) found",
                file=file,
                entry=root.name,
            )

        def invulnerable(profile: str) -> int | None:
            own = [lf.invulnerable for lf in sheet.leaves if lf.profile == profile]
            values = [v for v in own if v is not None]
            return min(values) if values else sheet.invulnerable

        profiles = tuple(
            replace(p, invulnerable_save=invulnerable(p.name)) for p in sheet.profiles.values()
        )
        leader_of, conditional = _leader_targets(sheet.leader_text)
        try:
            return Datasheet(
                id=root.id or slug(root.name),
                name=root.name.strip()[:200],
                faction_keywords=tuple(factions),
                keywords=tuple(keywords),
                profiles=profiles,
                models=tuple(models),
                min_models=lo,
                max_models=hi,
                points=tuple(tiers),
                weapons=tuple(sheet.weapons.values()),
                abilities=tuple(sheet.abilities),
                wargear_options=tuple(sheet.options),
                leader_of=leader_of,
                leader_of_conditional=conditional,
                extra_leader=_extra_leader(sheet.leader_text),
                two_leaders_from=sheet.two_leaders_from,
                transport_capacity=sheet.transport,
                character="character" in kw_keys,
                epic_hero="epic hero" in kw_keys,
                battleline="battleline" in kw_keys,
                dedicated_transport="dedicated transport" in kw_keys,
                legends="[legends]" in root.name.lower(),
                source=root.doc.name,
            )
        except ProfileError as exc:
            self.report.warning(
                IssueCode.DATASHEET_SKIPPED,
                f"{root.name}: skipped ({exc})",
                file=file,
                entry=root.name,
            )
            return None

    # -- detachments and enhancements ---------------------------------------------------

    def detachments(
        self, roots: list[Node], faction: str
    ) -> tuple[list[Detachment], dict[str, str]]:
        """Detachments offered by the primary catalogue's root "Detachment" entry, and the map
        from their entry ids to their names."""
        found: list[Detachment] = []
        ids: dict[str, str] = {}
        for root in roots:
            if root.is_group or "detachment" not in name_key(root.name):
                continue
            if root.type not in ("upgrade", ""):
                continue
            for node in self._detachment_entries(root, 0, hidden=True):
                self.hidden_detachment_ids.update(node.ids)
            for node in self._detachment_entries(root, 0):
                name = node.name.strip()[:200]
                if not name or any(name_key(d.name) == name_key(name) for d in found):
                    continue
                for i in node.ids:
                    ids[i] = name
                found.append(Detachment(name=name, faction=faction, id=node.id))
        return found, ids

    def _detachment_entries(
        self, node: Node, depth: int, *, hidden: bool = False
    ) -> Iterator[Node]:
        """The detachment entries under the root "Detachment" entry (with ``hidden``: only
        those hidden for this primary catalogue, e.g. another chapter's)."""
        if depth > 6:
            return
        for child in self.children(node):
            is_hidden = self.hidden(child)
            if child.is_group:
                if not is_hidden or hidden:
                    yield from self._detachment_entries(child, depth + 1, hidden=hidden)
            elif depth > 0 and child.type in ("upgrade", "") and is_hidden == hidden:
                yield child

    def enhancements(
        self,
        detachment_ids: dict[str, str],
        detachment_names: dict[str, str],
        characters: set[str] | None = None,
    ) -> list[Enhancement]:
        """The enhancements of the offered detachments. ``characters``: ids of the Character
        datasheets; a group linked from other datasheets too (e.g. vehicle upgrades of a
        detachment) is not restricted to Characters."""
        out: list[Enhancement] = []
        seen: set[tuple[str, str]] = set()
        # Enhancements of the primary catalogue and its libraries; another faction's
        # catalogue (imported for its allied units) is imported on its own.
        groups = {
            key: node
            for key, node in self.enhancement_groups.items()
            if node.doc is self.primary or node.doc.library
        }
        holder = self.primary.root.find("sharedSelectionEntryGroups")
        if holder is not None:
            for g in holder.findall("selectionEntryGroup"):
                if name_key(g.get("name") or "").endswith("enhancements"):
                    node = Node(g, self.primary)
                    groups.setdefault((self.primary.id, node.id), node)
        for key, node in groups.items():
            bearers = self.enhancement_bearers.get(key, set())
            only_characters = characters is None or not bearers or bearers <= characters
            found: list[Enhancement] = []
            self._enhancements_in(node, None, detachment_ids, detachment_names, (), found, seen, 0)
            out.extend(e if only_characters else replace(e, characters_only=False) for e in found)
        return out

    def _detachment_of(
        self, node: Node, detachment_ids: dict[str, str], detachment_names: dict[str, str]
    ) -> str | None:
        """The detachment an Enhancements group belongs to: the one its visibility conditions
        name, else the one its name says ("X Enhancements"). ``""``: a detachment this
        catalogue does not offer (another chapter's)."""
        for m, groups in node.modifiers():
            for holder in (*groups, m):
                for c in holder.iter("condition"):
                    child = c.get("childId") or ""
                    if child in detachment_ids:
                        return detachment_ids[child]
                    if child in self.hidden_detachment_ids:
                        return ""
        name = name_key(node.name)
        for suffix in (" enhancements", " enhancement"):
            if name.endswith(suffix):
                name = name[: -len(suffix)]
        return detachment_names.get(name)

    def _enhancements_in(
        self,
        node: Node,
        detachment: str | None,
        detachment_ids: dict[str, str],
        detachment_names: dict[str, str],
        group_rules: tuple[KeywordRule | bool, ...],
        out: list[Enhancement],
        seen: set[tuple[str, str]],
        depth: int,
    ) -> None:
        if depth > 6 or self.hidden(node):
            return
        found = self._detachment_of(node, detachment_ids, detachment_names)
        if found == "":
            return  # enhancements of a detachment this catalogue does not offer
        here = found or detachment
        if node.is_group:
            rules = (*group_rules, self.visibility_rule(node))
            for child in self.children(node):
                self._enhancements_in(
                    child, here, detachment_ids, detachment_names, rules, out, seen, depth + 1
                )
            return
        if here is None:
            self.report.warning(
                IssueCode.ENHANCEMENT_DETACHMENT_UNKNOWN,
                f"enhancement {node.name!r}: no detachment found for it; not imported",
                file=node.doc.filename,
                entry=node.name,
            )
            return
        rule = _and((*group_rules, self.visibility_rule(node)))
        if rule is False:
            return
        key = (name_key(here), name_key(node.name))
        if key in seen or not node.name.strip():
            return
        seen.add(key)
        out.append(
            Enhancement(
                name=node.name.strip()[:200],
                points=min(int(self.pts(node)), 10_000),
                detachment=here,
                eligibility=None if rule is True else rule,
            )
        )

    def visibility_rule(self, node: Node) -> KeywordRule | bool:
        """Who may take an entry, from its "hidden unless the bearer is X" modifiers: the
        keyword conditions become a :class:`KeywordRule`; conditions decided without a roster
        are applied; the others (uniqueness, roster counts) do not restrict the bearer."""
        hides: list[KeywordRule | bool] = []
        for m, groups in node.modifiers():
            if m.get("field") != "hidden" or m.get("type") != "set" or m.get("value") != "true":
                continue
            parts = [self._formula(g, node.ids) for g in groups] + [self._formula(m, node.ids)]
            hides.append(_and(parts))
        return _not(_or(hides))

    def _formula(self, holder: Element, self_ids: frozenset[str]) -> KeywordRule | bool:
        parts: list[KeywordRule | bool] = []
        conds = holder.find("conditions")
        if conds is not None:
            parts.extend(self._literal(c, self_ids) for c in conds.findall("condition"))
        groups = holder.find("conditionGroups")
        if groups is not None:
            for g in groups.findall("conditionGroup"):
                sub = self._formula(g, self_ids)
                parts.append(sub)
        if holder.tag == "conditionGroup" and holder.get("type") == "or":
            return _or(parts)
        return _and(parts)

    def _literal(self, c: Element, self_ids: frozenset[str]) -> KeywordRule | bool:
        decided = self.ws.condition(c, self.ctx, self_ids)
        if decided is not None:
            return decided
        kind = c.get("type") or ""
        scope = c.get("scope") or ""
        if kind in ("instanceOf", "notInstanceOf") and scope in (
            "ancestor",
            "parent",
            "root-entry",
            "self",
            "unit",
            "model",
        ):
            child = c.get("childId") or ""
            name = self.ws.category_names.get(child)
            if name is None:
                for d in self.ws.docs.values():
                    el = d.ids.get(child)
                    if el is not None and el.get("name"):
                        name = el.get("name")
                        break
            if name:
                if name.startswith(FACTION_PREFIX):
                    name = name[len(FACTION_PREFIX) :]
                lit = KeywordRule.has(name.strip()[:200])
                return lit if kind == "instanceOf" else KeywordRule.negate(lit)
        return False  # depends on the roster: does not restrict the bearer


def _and(parts: tuple[KeywordRule | bool, ...] | list[KeywordRule | bool]) -> KeywordRule | bool:
    rules: list[KeywordRule] = []
    for p in parts:
        if p is False:
            return False
        if p is True:
            continue
        assert isinstance(p, KeywordRule)
        if p not in rules:
            rules.append(p)
    if not rules:
        return True
    return KeywordRule.all_of(*rules)


def _or(parts: list[KeywordRule | bool]) -> KeywordRule | bool:
    rules: list[KeywordRule] = []
    for p in parts:
        if p is True:
            return True
        if p is False:
            continue
        assert isinstance(p, KeywordRule)
        if p not in rules:
            rules.append(p)
    if not rules:
        return False
    return KeywordRule.any_of(*rules)


def _not(rule: KeywordRule | bool) -> KeywordRule | bool:
    """Negation pushed down to the keywords (De Morgan), so rules read naturally."""
    if isinstance(rule, bool):
        return not rule
    op = rule.op.value
    if op == "not":
        return rule.args[0]
    if op == "keyword":
        return KeywordRule.negate(rule)
    negated = [_not(a) for a in rule.args]
    return _or(negated) if op == "all" else _and(negated)


def _leader_targets(text: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
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


def _extra_leader(text: str | None) -> bool:
    """Whether the Leader may join a unit that already has a Leader ("... even if one Captain
    ... has already been attached to it")."""
    if not text:
        return False
    lowered = text.replace("\xa0", " ").lower()
    return "even if" in lowered and "already been attached" in " ".join(lowered.split())


def build_catalogue(
    ws: Workspace, primary: Document, reporter: Reporter, limits: ImportLimits
) -> Catalogue | None:
    """The catalogue of one primary (non-library) catalogue document."""
    builder = Builder(ws, primary, reporter, limits)
    roots: list[Node] = []
    seen: set[tuple[str, str]] = set()
    root_docs: list[Document] = [primary]
    for target, import_roots in primary.links():
        linked = ws.docs.get(target)
        if linked is None:
            reporter.warning(
                IssueCode.MISSING_CATALOGUE_LINK,
                f"{primary.name} links the catalogue {target!r}, which was not uploaded; "
                "its entries are missing",
                file=primary.filename,
                target=target,
            )
        elif import_roots:
            root_docs.append(linked)
    primary_roots: list[Node] = []
    for doc in root_docs:
        for node in _root_nodes(builder, doc):
            key = (node.doc.id, node.id)
            if key in seen:
                continue
            seen.add(key)
            roots.append(node)
            if doc is primary:
                primary_roots.append(node)

    sheets: list[Datasheet] = []
    primary_sheet_ids: set[str] = set()
    for node in roots:
        if node.is_group or node.type not in ("unit", "model") or builder.hidden(node):
            continue
        builder.start_sheet(node)
        try:
            sheet = builder.datasheet(node)
        except WorkLimitExceeded:
            if builder.steps > limits.max_steps:
                raise
            reporter.warning(
                IssueCode.TOO_DEEP,
                f"{node.name}: its entries link to each other too many times; skipped",
                file=node.doc.filename,
                entry=node.name,
            )
            continue
        if sheet is None or any(s.id == sheet.id for s in sheets):
            continue
        sheets.append(sheet)
        if node in primary_roots:
            primary_sheet_ids.add(sheet.id)

    tally: Tally[str] = Tally()
    primary_faction_pending = [
        s for s in sheets if not s.faction_keywords and s.id in primary_sheet_ids
    ]
    for s in sheets:
        if s.id in primary_sheet_ids:
            tally.update(s.faction_keywords)
    if not tally:
        for s in sheets:
            tally.update(s.faction_keywords)
    faction = tally.most_common(1)[0][0] if tally else primary.name

    for s in primary_faction_pending:
        reporter.warning(
            IssueCode.FACTION_ASSUMED,
            f"{s.name} has no Faction keyword in the data; it is given {faction}, the faction "
            "of its catalogue",
            file=primary.filename,
            entry=s.name,
        )
        sheets[sheets.index(s)] = replace(s, faction_keywords=(faction,))

    builder.sheet_steps = 0
    detachments, det_ids = builder.detachments(primary_roots, faction)
    if not detachments:
        reporter.warning(
            IssueCode.NO_DETACHMENTS,
            f"{primary.name}: no detachments found",
            file=primary.filename,
        )
    det_names = {name_key(d.name): d.name for d in detachments}
    by_detachment: dict[str, list[Enhancement]] = {}
    characters = {s.id for s in sheets if s.character}
    builder.sheet_steps = 0
    for e in builder.enhancements(det_ids, det_names, characters):
        by_detachment.setdefault(e.detachment, []).append(e)
    detachments = [
        Detachment(d.name, d.faction, tuple(by_detachment.get(d.name, ())), d.id)
        for d in detachments
    ]

    by_key = {name_key(s.name): s.name for s in sheets}
    for s in sheets:
        if s.leader_of:
            s = _canonical_leader_targets(s, by_key)
            sheets[sheets.index(next(x for x in sheets if x.id == s.id))] = s
        for target in s.leader_of:
            if name_key(target) not in by_key:
                reporter.warning(
                    IssueCode.LEADER_TARGET_UNKNOWN,
                    f"{s.name} can lead {target!r}, which is not a datasheet of this catalogue",
                    entry=s.name,
                    target=target,
                )
    gst = ws.game_system
    version = f"r{primary.revision}" + (f"+gst-r{gst.revision}" if gst is not None else "")
    source = f"BSData {primary.label}" + (f"; {gst.label}" if gst is not None else "")
    return Catalogue(
        id=slug(primary.name),
        name=primary.name,
        version=version,
        factions=(faction,),
        datasheets=tuple(sheets),
        detachments=tuple(detachments),
        source=source,
    )


def _canonical_leader_targets(sheet: Datasheet, by_key: dict[str, str]) -> Datasheet:
    """Spell the Bodyguard units as their datasheets are named (case, "[Legends]")."""

    def fix(name: str) -> str:
        key = name_key(name)
        return by_key.get(key) or by_key.get(f"{key} [legends]") or name

    leader_of = tuple(dict.fromkeys(fix(n) for n in sheet.leader_of))
    conditional = tuple(dict.fromkeys(fix(n) for n in sheet.leader_of_conditional))
    if leader_of == sheet.leader_of and conditional == sheet.leader_of_conditional:
        return sheet
    return replace(sheet, leader_of=leader_of, leader_of_conditional=conditional)


def _root_nodes(builder: Builder, doc: Document) -> Iterator[Node]:
    root = doc.root
    box = root.find("selectionEntries")
    if box is not None:
        for e in box.findall("selectionEntry"):
            yield Node(e, doc)
    box = root.find("entryLinks")
    if box is not None:
        for link in box.findall("entryLink"):
            found = builder.resolve(link, doc)
            if found is None:
                continue
            elem, tdoc = found
            if elem.tag in ("selectionEntry", "selectionEntryGroup"):
                yield Node(elem, tdoc, link, doc)
