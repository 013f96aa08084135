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
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import cast
from xml.etree.ElementTree import Element

from app.catalog.bsdata.composition import (
    INF,
    Group,
    Leaf,
    fill_models,
    groups_of,
    leaves_of,
    size_bounds,
)
from app.catalog.bsdata.files import Document, ImportLimits
from app.catalog.bsdata.leaders import extra_leader, leader_targets
from app.catalog.bsdata.model import (
    SKIPPED_NAMES,
    Context,
    Node,
    Workspace,
    all3,
    iter_modifiers,
)
from app.catalog.bsdata.report import IssueCode, Reporter
from app.engine.dice import DiceExpr
from app.engine.errors import N_, DiceExpressionError, Message, ProfileError
from app.engine.wh40k10e.abilities import UnknownAbility, parse_ability
from app.engine.wh40k10e.army.catalog import (
    MAX_MODELS,
    MAX_UNITS_OF_A_KIND,
    Datasheet,
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

__all__ = ["FACTION_PREFIX", "NON_KEYWORDS", "Builder", "WorkLimitExceeded"]


class WorkLimitExceeded(Exception):
    """The data needs more work than :class:`ImportLimits` allows (a hostile or broken file)."""


FACTION_PREFIX = "Faction: "
# Categories that are BattleScribe plumbing, not keywords of a datasheet.
NON_KEYWORDS = frozenset(
    {"configuration", "reference", "unit", "order of battle", "allied units", "crusade relic"}
)
UNIT_PROFILE = "unit"
ABILITIES_PROFILE = "abilities"
TRANSPORT_PROFILE = "transport"
CATEGORY_CHANGES = ("add", "remove", "set-primary")  # "set-primary" adds the category too
# A choice's modifier adding a category with one of these scopes adds a keyword to the unit
# that takes it (one removing a category removes it, D24); scope "parent" too when the
# choice's nearest selection above is the root entry (ruling D22).
UNIT_CATEGORY_SCOPES = frozenset({"root-entry", "unit"})
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
class _Sheet:
    """What the walk of one datasheet collects."""

    root: Node
    comp: Group
    leaves: list[Leaf] = field(default_factory=list)
    category_ids: list[str] = field(default_factory=list)
    weapons: dict[str, Weapon] = field(default_factory=dict)
    abilities: list[str] = field(default_factory=list)
    profiles: dict[str, ModelProfile] = field(default_factory=dict)
    invulnerable: int | None = None
    leader_text: str | None = None
    transport: int | None = None
    two_leaders_from: int | None = None
    options: list[WargearOption] = field(default_factory=list)
    carried: frozenset[str] | None = None  # the categories an entry of the unit may carry


@dataclass(slots=True)
class _Walked:
    """What pricing a datasheet again (in a detachment) needs."""

    sheet: _Sheet
    root_cost: float
    root_mods: list[tuple[Element, tuple[Element, ...], frozenset[str]]]
    lo: int
    hi: int


@dataclass(slots=True)
class _Choice:
    name: str
    weapons: list[str]
    points: int
    max_per_unit: int | None
    keywords: tuple[str, ...] = ()
    max_in_roster: int | None = None
    removed_keywords: tuple[str, ...] = ()


class _Recorder:
    """Stands for the :class:`Reporter` while a value is read once for the whole import: it
    keeps the calls, which are replayed to each catalogue's reporter."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[object, ...], dict[str, object]]] = []

    def warning(self, *args: object, **kwargs: object) -> None:
        self.calls.append(("warning", args, kwargs))

    def grouped(self, *args: object, **kwargs: object) -> None:
        self.calls.append(("grouped", args, kwargs))


class _Trace:
    """What building one datasheet (or reading one weapon) did that a catalogue built later in
    the same import needs again when it offers the same entry (issue 17): its reports and
    per-catalogue bookkeeping in order (``events``), the ids of the catalogues its
    ``primary-catalogue`` conditions name (``reads``: the only fact of the catalogue the build
    reads) and the work it cost beyond the weapons it read (``cost``)."""

    __slots__ = ("cost", "events", "ok", "reads")

    def __init__(self) -> None:
        self.events: list[tuple[object, ...]] = []
        self.reads: set[str] = set()
        self.cost = 0
        self.ok = True


class _Tee:
    """Stands for the :class:`Reporter` while a datasheet is built: passes each call on and
    keeps it in the builder's current trace."""

    def __init__(self, real: Reporter, builder: Builder) -> None:
        self.real = real
        self.builder = builder

    def warning(self, *args: object, **kwargs: object) -> None:
        trace = self.builder._trace
        if trace is not None:
            trace.events.append(("call", "warning", args, dict(kwargs)))
        self.real.warning(*args, **kwargs)  # type: ignore[arg-type]

    def grouped(self, *args: object, **kwargs: object) -> None:
        trace = self.builder._trace
        if trace is not None:
            trace.events.append(("call", "grouped", args, dict(kwargs)))
        self.real.grouped(*args, **kwargs)  # type: ignore[arg-type]


@dataclass(slots=True)
class _WeaponRead:
    """A weapon read by one builder, with its trace (replayed by a builder that has not read
    it when it reuses a datasheet holding it)."""

    weapon: Weapon | None
    trace: _Trace


@dataclass(slots=True)
class _Built:
    """A datasheet built for the catalogue ``primary``, reusable by another catalogue of the
    same import whose id none of ``trace.reads`` names (nor ``primary``'s)."""

    primary: str
    sheet: Datasheet | None
    trace: _Trace


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
        self._hidden: dict[tuple[int, int], bool] = {}  # (entry, link) -> hidden here
        self._unresolved: set[tuple[str, str]] = set()
        self.enhancement_groups: dict[tuple[str, str], Node] = {}
        self.steps = 0
        self.sheet_steps = 0
        self._root_scopes: frozenset[str] = frozenset()  # ids of the datasheet being built
        self.hidden_detachment_ids: set[str] = set()
        # Which datasheets (by id) link each Enhancements group.
        self.enhancement_bearers: dict[tuple[str, str], set[str]] = {}
        # Which datasheets (by id) link each Enhancements group below one of their models (the
        # nearest selection above it is not the root entry: its members' scope "parent" is
        # then that model, not the unit, ruling D25).
        self.enhancement_model_bearers: dict[tuple[str, str], set[str]] = {}
        self.walked: dict[str, _Walked] = {}
        # what children() meets in a holder, by (holder, document): shared by the builders of
        # one import (it does not read the primary catalogue, and reports nothing itself)
        self._kids: dict[tuple[int, str], list[tuple[Node | None, Element | None]]] = ws.memo(
            "children"
        )
        # _has_models(node, depth) by (entry, link, depth): (answer, work it cost), shared by
        # the builders of one import when no link that does not resolve was met (those are
        # reported per catalogue)
        self._models: dict[tuple[int, int, int], tuple[bool, int]] = ws.memo("has-models")
        self._unresolved_met = 0  # links met by children() that do not resolve
        # while the members of an option are walked: (that option's name, the member's name),
        # the choice the options met inside sit in (ruling D20)
        self._within: tuple[str, str] | None = None
        # hidden() of the entries no modifier hides or shows, by (entry, link): shared by the
        # builders of one import
        self._fixed_hidden: dict[tuple[int, int], bool] = ws.memo("fixed-hidden")
        # hidden() of the entries a modifier hides or shows, by (entry, link): the catalogue
        # ids its primary-catalogue conditions name, and the answer in a catalogue that is
        # none of them (the only fact of the builder's context that differs between the
        # catalogues of one import; issue 17: a chapter asks for its parent's entries)
        self._shared_hidden: dict[tuple[int, int], tuple[frozenset[str], bool]] = ws.memo(
            "shared-hidden"
        )
        self._weapon_profiles: dict[
            tuple[int, str, str, str, str],
            tuple[
                WeaponProfile | None, tuple[tuple[str, tuple[object, ...], dict[str, object]], ...]
            ],
        ] = ws.memo("weapon-profiles")
        # Datasheets built for one catalogue, reused by another catalogue of the import that
        # offers the same root entry (a chapter offers its parent's) when no condition the
        # build read names either catalogue (issue 17): by (entry, link) of the root.
        self._built: dict[tuple[int, int], list[_Built]] = ws.memo("datasheets")
        # the ids of the catalogues the primary-catalogue conditions of an element name
        self._primary_reads: dict[int, frozenset[str]] = ws.memo("primary-reads")
        self._trace: _Trace | None = None  # what the datasheet being built does, if traced
        self._sink: Reporter = reporter  # the reporter itself, while self.report is a _Tee
        self._weapon_reads: dict[tuple[str, str], _WeaponRead] = {}
        self._hidden_reads: dict[tuple[int, int], frozenset[str]] = {}

    # -- generic access ---------------------------------------------------------------

    def start_sheet(self, root: Node) -> None:
        self._root_scopes = root.ids
        self.sheet_steps = 0

    def root_datasheet(self, root: Node) -> Datasheet | None:
        """The datasheet of the root entry ``root`` (:meth:`datasheet`), the one another
        catalogue of this import built from it when that build read nothing that differs here
        (issue 17: a chapter's catalogue offers its parent's datasheets): the only fact of its
        catalogue a build reads is which catalogue is primary, through ``primary-catalogue``
        conditions; a build that read none naming either catalogue is the same here, and what
        it did for its own catalogue (reports, unresolved links, weapons read, Enhancements
        groups linked, work counted) is done again here as it would have been."""
        self.start_sheet(root)
        if self.ws.census is not None:  # the census counts every condition evaluated
            return self.datasheet(root)
        key = (id(root.elem), id(root.link))
        known = self._built.setdefault(key, [])
        me = self.primary.id
        for built in known:
            reads = built.trace.reads
            if me not in reads and built.primary not in reads and self._replay(built.trace):
                return built.sheet
        trace = self._trace = _Trace()
        real = self._sink = self.report
        self.report = cast(Reporter, _Tee(real, self))
        before = self.steps
        try:
            sheet = self.datasheet(root)
        finally:
            self._trace = None
            self.report = real
        trace.cost += self.steps - before
        if trace.ok:
            known.append(_Built(me, sheet, trace))
        return sheet

    def _replay(self, trace: _Trace) -> bool:
        """Do again what a traced build did, if the work it counted fits in what is left
        (else ``False``, nothing done: the build is run, and stops where it would)."""
        cost = trace.cost
        weapons: set[tuple[str, str]] = set()
        for event in trace.events:
            if event[0] == "weapon":
                key = cast(tuple[str, str], event[1])
                if key not in self._weapons and key not in weapons:
                    weapons.add(key)
                    cost += cast(_WeaponRead, event[2]).trace.cost
        room = min(
            self.limits.max_steps - self.steps,
            self.limits.max_steps_per_sheet - self.sheet_steps,
        )
        if cost > room:
            return False
        self._charge(cost)
        self._play(trace.events)
        return True

    def _play(self, events: list[tuple[object, ...]]) -> None:
        for event in events:
            kind = event[0]
            if kind == "call":
                method, args, kwargs = cast(
                    tuple[str, tuple[object, ...], dict[str, object]], event[1:]
                )
                getattr(self.report, method)(*args, **kwargs)
            elif kind == "resolve":
                self.resolve(cast(Element, event[1]), cast(Document, event[2]))
            elif kind == "weapon":
                key = cast(tuple[str, str], event[1])
                if key not in self._weapons:
                    read = cast(_WeaponRead, event[2])
                    self._weapons[key] = read.weapon
                    self._weapon_reads[key] = read
                    self._play(read.trace.events)
            elif kind == "bears":
                key, group, root_id, bearer = cast(
                    tuple[tuple[str, str], Node, str, str | None], event[1:]
                )
                self._bears(key, group, root_id, bearer)
            elif kind == "walked":
                self.walked[cast(str, event[1])] = cast(_Walked, event[2])

    def _step(self) -> None:
        """Count one unit of work: a hostile file (links fanning out to the same entries many
        times over) cannot make an import run for long."""
        self.steps += 1
        self.sheet_steps += 1
        if self.steps > self.limits.max_steps or self.sheet_steps > self.limits.max_steps_per_sheet:
            raise WorkLimitExceeded

    def _charge(self, cost: int) -> None:
        """Count ``cost`` units of work at once (a memoised answer is charged what computing
        it cost), stopping where counting them one by one would have."""
        room = min(
            self.limits.max_steps - self.steps,
            self.limits.max_steps_per_sheet - self.sheet_steps,
        )
        if cost > room:
            self.steps += max(room, 0) + 1
            self.sheet_steps += max(room, 0) + 1
            raise WorkLimitExceeded
        self.steps += cost
        self.sheet_steps += cost

    def _children_of(
        self, holder: Element, doc: Document
    ) -> list[tuple[Node | None, Element | None]]:
        """What :meth:`children` meets in one holder, in order, resolved once: ``(node, None)``
        for a child yielded, ``(None, link)`` for a link that does not resolve (resolved again
        when met, to report it), ``(None, None)`` for a link to something else."""
        key = (id(holder), doc.id)
        found = self._kids.get(key)
        if found is not None:
            return found
        items: list[tuple[Node | None, Element | None]] = []
        for box_name, tag in (
            ("selectionEntries", "selectionEntry"),
            ("selectionEntryGroups", "selectionEntryGroup"),
        ):
            box = holder.find(box_name)
            if box is not None:
                items.extend((Node(child, doc), None) for child in box.findall(tag))
        box = holder.find("entryLinks")
        if box is not None:
            for link in box.findall("entryLink"):
                target = self.ws.resolve(link.get("targetId") or "", doc)
                if target is None:
                    items.append((None, link))
                elif target[0].tag in ("selectionEntry", "selectionEntryGroup"):
                    items.append((Node(target[0], target[1], link, doc), None))
                else:
                    items.append((None, None))
        self._kids[key] = items
        return items

    def children(self, node: Node) -> Iterator[Node]:
        self._step()
        limits = self.limits
        for holder, doc in node.holders():
            for child, unresolved in self._children_of(holder, doc):
                # _step() written out: one call less per child met (issue 17)
                self.steps += 1
                self.sheet_steps += 1
                if self.steps > limits.max_steps or self.sheet_steps > limits.max_steps_per_sheet:
                    raise WorkLimitExceeded
                if child is not None:
                    yield child
                elif unresolved is not None:
                    self._unresolved_met += 1
                    self.resolve(unresolved, doc)  # reported the first time only

    def resolve(self, link: Element, doc: Document) -> tuple[Element, Document] | None:
        target_id = link.get("targetId") or ""
        found = self.ws.resolve(target_id, doc)
        if found is None:
            key = (doc.id, target_id)
            report: Reporter = self.report
            if self._trace is not None:
                # replayed as this call (reported by a catalogue that has not reported it)
                self._trace.events.append(("resolve", link, doc))
                report = self._sink
            if key not in self._unresolved:
                self._unresolved.add(key)
                report.warning(
                    IssueCode.UNRESOLVED_LINK,
                    Message(
                        N_(
                            "link %(name)s points to %(target)s, which is in none of the "
                            "uploaded files (is a linked catalogue missing?)"
                        ),
                        {"name": repr(link.get("name") or ""), "target": repr(target_id)},
                    ),
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
        trace = self._trace
        if trace is not None:
            reads = self._reads_of(modifier)
            if reads:
                trace.reads.update(reads)
            for g in groups:
                reads = self._reads_of(g)
                if reads:
                    trace.reads.update(reads)
        return all3(
            [self.ws.conditions_of(g, c, self_ids) for g in groups]
            + [self.ws.conditions_of(modifier, c, self_ids)]
        )

    def _reads_of(self, holder: Element) -> frozenset[str]:
        """The catalogue ids that ``holder``'s ``primary-catalogue`` conditions name (those it
        reads of the catalogue being built), read once per import."""
        key = id(holder)
        found = self._primary_reads.get(key)
        if found is None:
            ids: set[str] = set()
            stack = [holder]
            while stack:
                h = stack.pop()
                conds = h.find("conditions")
                if conds is not None:
                    for c in conds.findall("condition"):
                        if c.get("scope") == "primary-catalogue":
                            ids.add(c.get("childId") or "")
                groups = h.find("conditionGroups")
                if groups is not None:
                    stack.extend(groups.findall("conditionGroup"))
            found = self._primary_reads[key] = frozenset(ids)
        return found

    def _hidden_elem(
        self, elems: list[Element], self_ids: frozenset[str], ctx: Context | None = None
    ) -> bool:
        state = False
        for e in elems:
            if e.get("hidden") == "true":
                state = True
                break
        for e in elems:
            for m, groups in self.ws.hide_modifiers(e):
                if self.applies(m, groups, self_ids, ctx) is True:
                    state = m.get("value") == "true"
        return state

    def hidden(self, node: Node, ctx: Context | None = None) -> bool:
        if ctx is not None:
            return self._hidden_elem([h for h, _ in node.holders()], node.ids, ctx)
        # in the builder's own context, once per entry as reached (the datasheet walk and the
        # restriction reader ask for the same entries)
        key = (id(node.elem), id(node.link))
        found = self._fixed_hidden.get(key)
        if found is not None:
            return found
        found = self._hidden.get(key)
        if found is not None:
            trace = self._trace
            if trace is not None:
                reads = self._hidden_reads.get(key)
                if reads:
                    trace.reads.update(reads)
        else:
            holders = [h for h, _ in node.holders()]
            if any(self.ws.hide_modifiers(h) for h in holders):
                shared = self._shared_hidden.get(key) if self.ws.census is None else None
                if shared is not None and self.primary.id not in shared[0]:
                    # decided by another catalogue of this import that its conditions do not
                    # name either: what _hidden_elem's applies() tells the trace, told here
                    reads, found = shared
                    trace = self._trace
                    if trace is not None and reads:
                        trace.reads.update(reads)
                else:
                    found = self._hidden_elem(holders, node.ids, None)
                    reads = frozenset(
                        i
                        for h in holders
                        for m, groups in self.ws.hide_modifiers(h)
                        for x in (m, *groups)
                        for i in self._reads_of(x)
                    )
                    if self.primary.id not in reads:
                        self._shared_hidden[key] = (reads, found)
                self._hidden[key] = found
                if reads:
                    self._hidden_reads[key] = reads
            else:  # no modifier: the same in every catalogue, read once per import
                found = any(h.get("hidden") == "true" for h in holders)
                self._fixed_hidden[key] = found
        return found

    def roster_limit(self, node: Node, ctx: Context | None = None) -> int | None:
        """The most copies of ``node`` a roster may hold: its "max selections" constraints in
        the roster or the force, after the modifiers that change them. ``None`` when the data
        gives none, or when a modifier of it depends on the rest of the roster (e.g. "0 unless
        the army includes X"): the core rule then decides."""
        found: int | None = None
        mods = list(node.modifiers())
        for c in node.constraints():
            if c.get("type") != "max" or c.get("field") != "selections":
                continue
            if (c.get("scope") or "") not in ("roster", "force"):
                continue
            try:
                value = float(c.get("value") or "0")
            except ValueError:
                continue
            cid = c.get("id") or ""
            for m, groups in mods:
                if not cid or m.get("field") != cid:
                    continue
                decided = self.applies(m, groups, node.ids, ctx)
                if decided is None:
                    return None
                if not decided:
                    continue
                try:
                    amount = float(m.get("value") or "0")
                except ValueError:
                    continue
                kind = m.get("type")
                if kind == "set":
                    value = amount
                elif kind == "increment":
                    value += amount
                elif kind == "decrement":
                    value -= amount
            if value < 0:
                continue  # -1: no limit
            limit = min(int(value), MAX_UNITS_OF_A_KIND)
            found = limit if found is None else min(found, limit)
        return found

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

    def node_categories(self, node: Node, ctx: Context | None = None) -> list[str]:
        ids = list(node.category_ids())
        for m, groups in node.modifiers():
            if m.get("field") != "category" or m.get("type") not in CATEGORY_CHANGES:
                continue
            if self.applies(m, groups, node.ids, ctx) is not True:
                continue
            value = m.get("value") or ""
            if m.get("type") in ("add", "set-primary") and value not in ids:
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
        outer = self._trace
        if key in self._weapons:
            if outer is not None:
                read = self._weapon_reads.get(key)
                if read is None:
                    outer.ok = False  # read outside a trace: what it did is not known
                else:
                    outer.events.append(("weapon", key, read))
                    outer.reads.update(read.trace.reads)
            return self._weapons[key]
        if outer is None:
            return self._read_weapon(node, key)
        inner = self._trace = _Trace()
        before = self.steps
        try:
            weapon = self._read_weapon(node, key)
        finally:
            self._trace = outer
        inner.cost = self.steps - before
        read = self._weapon_reads[key] = _WeaponRead(weapon, inner)
        outer.events.append(("weapon", key, read))
        outer.reads.update(inner.reads)
        outer.cost -= inner.cost  # the sheet's own work is counted without it
        outer.ok = outer.ok and inner.ok
        return weapon

    def _read_weapon(self, node: Node, key: tuple[str, str]) -> Weapon | None:
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
        """The weapon profile of ``el``. Read once per import: the catalogues built after the
        first get the same value and the same issues reported, in the same order."""
        key = (id(el), doc.id, name, pkind, entry)
        known = self._weapon_profiles.get(key)
        if known is None:
            real, recorder = self.report, _Recorder()
            self.report = cast(Reporter, recorder)
            try:
                found = self._read_weapon_profile(el, doc, name, pkind, entry)
            finally:
                self.report = real
            known = self._weapon_profiles[key] = (found, tuple(recorder.calls))
        for method, args, kwargs in known[1]:
            getattr(self.report, method)(*args, **kwargs)
        return known[0]

    def _read_weapon_profile(
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
            Message(
                N_("%(where)s: characteristic %(field)s = %(text)s is not a value the app can use"),
                {"where": where, "field": field_name, "text": repr(text)},
            ),
            file=doc.filename,
            entry=where,
            characteristic=field_name,
            text=text,
        )

    # -- model profiles and abilities --------------------------------------------------

    def collect_profiles(self, node: Node, sheet: _Sheet, leaf: Leaf | None) -> None:
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

    def _invulnerable(self, sheet: _Sheet, leaf: Leaf | None, name: str, text: str) -> None:
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
                Message(
                    N_(
                        "%(name)s: the %(value)s+ invulnerable save has a condition in the data; "
                        "it is recorded as a plain invulnerable save"
                    ),
                    {"name": sheet.root.name, "value": value},
                ),
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
        comp = Group(root.name, root.ids, 0, INF)
        sheet = _Sheet(root=root, comp=comp)
        sheet.category_ids.extend(self.node_categories(root))
        self.collect_profiles(root, sheet, None)
        path = {(root.doc.id, root.id)}
        if kind == "model":
            leaf = Leaf(root, root.name, 1, 1, self.pts(root), self.cost_modifiers(root))
            comp.children.append(leaf)
            sheet.leaves.append(leaf)
            leaf.profile = next(iter(sheet.profiles), "")
            for child in self.children(root):
                self.walk(child, sheet, leaf, comp, 1, path, in_choice=False, at_root=True)
            root_cost, root_mods = 0.0, []
        else:
            for child in self.children(root):
                self.walk(child, sheet, None, comp, 1, path, in_choice=False, at_root=True)
            root_cost, root_mods = self.pts(root), self.cost_modifiers(root)
        return self.finish(sheet, root_cost, root_mods)

    def walk(
        self,
        node: Node,
        sheet: _Sheet,
        model: Leaf | None,
        comp: Group,
        depth: int,
        path: set[tuple[str, str]],
        *,
        in_choice: bool,
        optional: bool = False,
        choice: bool = False,
        at_root: bool = False,
    ) -> None:
        """Walk one entry or group. ``in_choice``: inside an item of a wargear option (its
        mandatory parts belong to that item, not to the model's default wargear);
        ``optional``: inside an entry the unit may not take (a group's ``min`` there binds
        only a unit that takes it, ruling D20); ``choice``: ``node`` is a choice of an option,
        which the options inside it name (``within``), so it makes them no more optional than
        they are; ``at_root``: the nearest selection above is
        the root entry (groups are no selections), so a ``parent`` scope there is the unit
        (ruling D22)."""
        if depth > self.limits.max_depth:
            self.report.warning(
                IssueCode.TOO_DEEP,
                Message(
                    N_("%(name)s: entries nested deeper than %(most)s levels were not read"),
                    {"name": sheet.root.name, "most": self.limits.max_depth},
                ),
                file=node.doc.filename,
                entry=sheet.root.name,
            )
            return
        key = (node.doc.id, node.id)
        if key in path:
            self.report.warning(
                IssueCode.LINK_CYCLE,
                Message(
                    N_("%(name)s: entry %(entry)s links back to itself; the loop was cut"),
                    {"name": sheet.root.name, "entry": repr(node.name)},
                ),
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
                bearer = None if at_root else sheet.root.id or slug(sheet.root.name)
                self._bears(key, node, sheet.root.id, bearer)
                if self._trace is not None:
                    self._trace.events.append(("bears", key, node, sheet.root.id, bearer))
                return
            members = [m for m in self.children(node) if not self.hidden(m)]
            if any(self._has_models(m, 0) for m in members):
                packages = [m for m in members if not m.is_group and m.type != "model"]
                group = Group(
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
                        package = Group(m.name.strip(), m.ids, 0, INF)
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
                    self.walk(
                        m,
                        sheet,
                        model,
                        group,
                        depth + 1,
                        path,
                        in_choice=in_choice,
                        at_root=at_root,
                    )
                return
            if self.constraint(node, "min") is None and self.constraint(node, "max") is None:
                # A plain container (e.g. "Wargear"): its entries stand on their own.
                for m in members:
                    self.walk(
                        m,
                        sheet,
                        model,
                        comp,
                        depth + 1,
                        path,
                        in_choice=in_choice,
                        optional=optional,
                        at_root=at_root,
                    )
                return
            made = self.option(
                node,
                members,
                sheet,
                model,
                in_choice=in_choice or optional,
                nested=in_choice and not optional and self._within is not None,
                at_root=at_root,
            )
            default_id = node.default_selection_id()
            outer = self._within
            for m in members:
                linked = made is not None and not m.is_group
                if made is not None and linked:
                    # the options inside this member are open only to a model taking it
                    self._within = (made.name, m.name.strip()[:200])
                try:
                    self.walk(
                        m,
                        sheet,
                        model,
                        comp,
                        depth + 1,
                        path,
                        in_choice=True,
                        optional=optional,
                        choice=linked,
                        at_root=at_root,
                    )
                finally:
                    self._within = outer
                if (
                    model is not None
                    and not in_choice
                    and default_id is not None
                    and default_id in m.ids
                ):
                    model.default_wargear.extend(self.gives(m, depth))
            return
        if node.type == "model":
            leaf = Leaf(
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
            outer = self._within
            self._within = None  # a model's own options sit in no choice
            try:
                for child in self.children(node):
                    self.walk(child, sheet, leaf, comp, depth + 1, path, in_choice=False)
            finally:
                self._within = outer
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
                most = self._option_max(node)
                self.option_single(
                    node,
                    sheet,
                    model,
                    MAX_MODELS if most is None else min(most, MAX_MODELS),
                    at_root=at_root,
                )
        for child in self.children(node):
            self.walk(
                child,
                sheet,
                model,
                comp,
                depth + 1,
                path,
                in_choice=in_choice,
                optional=optional or not (mandatory or choice),
            )

    def _bears(
        self, key: tuple[str, str], group: Node, root_id: str, model_bearer: str | None
    ) -> None:
        """The datasheet ``root_id`` links the Enhancements group ``group`` (below one of its
        models: ``model_bearer``)."""
        self.enhancement_groups.setdefault(key, Node(group.elem, group.doc))
        self.enhancement_bearers.setdefault(key, set()).add(root_id)
        if model_bearer is not None:
            self.enhancement_model_bearers.setdefault(key, set()).add(model_bearer)

    def raised_min(self, node: Node, ctx: Context | None = None) -> int:
        """``node``'s ``min`` selections (scope ``parent``) after the modifiers that change it
        in ``ctx`` (the builder's own by default), ruling D20: a modifier applies when its
        conditions hold, counting the entry itself as not taken. A condition on the entry
        itself ("fewer than N of it") may only say "required until taken": it is read so when
        it holds below the value set (taken N times, the requirement is met either way)."""
        c = ctx or self.ctx
        ids = node.ids
        if c.count is None:
            c = c.with_counter(lambda _scope, child: 0.0 if child in ids else None)
        found = 0
        mods: list[tuple[Element, tuple[Element, ...]]] | None = None
        for con in node.constraints():
            if con.get("type") != "min" or con.get("field") != "selections":
                continue
            if (con.get("scope") or "") != "parent":
                continue
            try:
                value = float(con.get("value") or "0")
            except ValueError:
                continue
            cid = con.get("id") or ""
            if mods is None:
                mods = list(node.modifiers())
            for m, groups in mods:
                if not cid or m.get("field") != cid or m.find("repeats") is not None:
                    continue
                try:
                    amount = float(m.get("value") or "0")
                except ValueError:
                    continue
                kind = m.get("type")
                after = (
                    amount
                    if kind == "set"
                    else value + amount
                    if kind == "increment"
                    else value - amount
                    if kind == "decrement"
                    else None
                )
                if after is None or not self._self_bound(m, groups, ids, after):
                    continue
                if self.applies(m, groups, ids, c) is True:
                    value = after
                    census = self.ws.census
                    if census is not None:  # "until taken": the validator checks the count
                        for h in (*groups, m):
                            for cond in h.iter("condition"):
                                if (cond.get("childId") or "") in ids:
                                    census.deferred(cond)
            found = max(found, int(max(value, 0)))
        return min(found, MAX_MODELS)

    @staticmethod
    def _self_bound(
        modifier: Element, groups: tuple[Element, ...], ids: frozenset[str], after: float
    ) -> bool:
        """Whether every condition of ``modifier`` that counts the entry itself is "fewer than
        V of it" with V at least ``after`` (so "required until taken N times" is "at least
        N"); other readings of a count of itself are not made."""
        for holder in (*groups, modifier):
            for c in holder.iter("condition"):
                if (c.get("childId") or "") not in ids:
                    continue
                try:
                    bound = float(c.get("value") or "")
                except ValueError:
                    return False
                if c.get("type") != "lessThan" or bound < after:
                    return False
        return True

    def maybe_hidden(self, node: Node) -> bool:
        """Whether a "hidden" modifier of ``node`` depends on what the builder does not know
        here (the Detachment, the rest of the roster, the bearer)."""
        for h, _ in node.holders():
            for m, groups in self.ws.hide_modifiers(h):
                if m.get("value") == "true" and self.applies(m, groups, node.ids) is None:
                    return True
        return False

    def warlord_hidden(self, root: Node) -> bool:
        """Whether the datasheet's own "Warlord" entries are all hidden in this catalogue's
        armies (a library's Warlord entry hidden unless its catalogue is the primary one: an
        ally, ruling D19). ``False`` when it has none (the core rule decides)."""
        found = False
        for child in self.children(root):
            if child.is_group or name_key(child.name) != "warlord":
                continue
            if not self.hidden(child):
                return False
            found = True
        return found

    def _max(self, node: Node) -> int:
        value = self.constraint(node, "max")
        return INF if value is None or value < 0 else value

    def option_max(self, node: Node) -> int | None:
        """The most of ``node`` its parent may hold in any loadout (see :meth:`_option_max`)."""
        return self._option_max(node)

    def _option_max(self, node: Node, scopes: tuple[str, ...] = ("parent",)) -> int | None:
        """The most a wargear entry or option allows in any loadout (ruling D16): its ``max``
        constraint raised by the modifiers that may apply to it (``increment``, or ``set`` to
        more), unless decided false here. A modifier that lowers it is read as a restriction
        by :class:`RestrictionReader`; one repeated per selection counted leaves no cap."""
        found: int | None = None
        for c in node.constraints():
            if c.get("type") != "max" or c.get("field") != "selections":
                continue
            scope = c.get("scope") or ""
            if scope not in scopes and not (scopes != ("parent",) and scope in self._root_scopes):
                continue
            try:
                base = float(c.get("value") or "0")
            except ValueError:
                continue
            if base < 0:
                continue
            value, raised = base, 0.0
            cid = c.get("id") or ""
            for m, groups in node.modifiers() if cid else ():
                if m.get("field") != cid or self.applies(m, groups, node.ids) is False:
                    continue
                kind = m.get("type")
                try:
                    amount = float(m.get("value") or "0")
                except ValueError:
                    continue
                if kind == "increment" and amount > 0:
                    if m.find("repeats") is not None:
                        return None  # grows with what is counted: no cap here
                    raised += amount
                elif kind == "set" and (amount < 0 or amount > value):
                    if amount < 0:
                        return None  # "no limit" in some loadout
                    value = amount
            limit = int(value + raised)
            found = limit if found is None else min(found, limit)
        return found

    def _has_models(self, node: Node, depth: int) -> bool:
        """Whether ``node`` is, or holds, a model entry."""
        if depth > 6:
            return False
        if not node.is_group and node.type == "model":
            return True
        key = (id(node.elem), id(node.link), depth)
        known = self._models.get(key)
        if known is not None:
            self._charge(known[1])
            return known[0]
        before, met = self.steps, self._unresolved_met
        found = any(self._has_models(m, depth + 1) for m in self.children(node))
        if self._unresolved_met == met:
            self._models[key] = (found, self.steps - before)
        return found

    def gives(self, node: Node, depth: int) -> list[str]:
        """Weapon names an entry gives (itself, or the weapons inside it), else its name."""
        if depth > self.limits.max_depth:
            return []
        weapon = self.weapon_of(node)
        if weapon is not None:
            return [weapon.name]
        out: list[str] = []
        groups = False
        for child in self.children(node):
            if self.hidden(child) or name_key(child.name) == "warlord":
                continue  # a Warlord entry (inside "Tank Ace Character") is no wargear
            if not child.is_group:
                out.extend(self.gives(child, depth + 1))
                continue
            groups = True
            default_id = child.default_selection_id()
            for m in self.children(child):
                if default_id is not None and default_id in m.ids and not self.hidden(m):
                    out.extend(self.gives(m, depth + 1))
        if out or (groups and not self.profiles_of(node)):
            # a choice made only of groups with no default and nothing of its own (a Captain's
            # "Pistol and Melee Weapon"): no pretend weapon, its groups' picks give the weapons
            # (ruling D20); an entry with a profile of its own (a Blizzard shield) is wargear
            return out
        return [node.name.strip()]

    def choice(self, node: Node, *, at_root: bool = False) -> _Choice:
        """``node`` as a choice; ``at_root``: its nearest selection above is the root entry."""
        cap = self._option_max(node, ("unit",))  # raised by its modifiers (D16)
        added, removed = self.unit_categories(node, at_root=at_root)
        return _Choice(
            node.name.strip(),
            self.gives(node, 0),
            int(self.pts(node)),
            cap,
            added,
            self.roster_limit(node),  # the most an army may take (D23)
            removed,
        )

    def unit_categories(
        self,
        node: Node,
        *,
        at_root: bool = False,
        visible_only: bool = False,
        ctx: Context | None = None,
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The keywords a unit gains by taking ``node`` (ruling D22) and those it loses (D24):
        its modifiers that add a category (``add`` or ``set-primary``) to the unit, or remove
        one from it (``remove``), with scope ``root-entry`` or ``unit`` (``parent`` too when
        ``at_root``, the nearest selection above ``node`` being the root entry: a Chaos Space
        Marines Specialism), unconditioned or with conditions decided true here, in the data's
        order (in ``ctx``, the builder's own by default). Faction keywords and BattleScribe's
        plumbing categories are not read, nor (``visible_only``) the categories the data hides
        (its display flags)."""
        added: list[str] = []
        removed: list[str] = []
        for m, groups in node.modifiers():
            kind = m.get("type")
            if m.get("field") != "category" or kind not in CATEGORY_CHANGES:
                continue
            scope = m.get("scope") or ""
            if scope not in UNIT_CATEGORY_SCOPES and not (at_root and scope == "parent"):
                continue
            if self.applies(m, groups, node.ids, ctx) is not True:
                continue
            value = m.get("value") or ""
            if visible_only and value in self.ws.hidden_categories:
                continue
            cname = self.category_name(value).strip()[:200]
            if not cname or cname.startswith(FACTION_PREFIX) or name_key(cname) in NON_KEYWORDS:
                continue
            if kind == "remove":
                added = [k for k in added if k != cname]
                if cname not in removed:
                    removed.append(cname)
            else:
                removed = [k for k in removed if k != cname]
                if cname not in added:
                    added.append(cname)
        return tuple(added), tuple(removed)

    def option(
        self,
        group: Node,
        members: list[Node],
        sheet: _Sheet,
        model: Leaf | None,
        *,
        in_choice: bool = False,
        nested: bool = False,
        at_root: bool = False,
    ) -> WargearOption | None:
        """``group`` as a wargear option. ``in_choice``: it sits inside a choice or an entry
        the unit may not take; ``nested``: inside a choice of another option, whose picks it
        must fill each time that choice is taken (its ``min``, ruling D20)."""
        choices: list[WargearChoice] = []
        for m in self._flatten(members, 0):
            c = self.choice(m, at_root=at_root)  # a group is no selection: same parent
            if c.name and all(name_key(x.name) != name_key(c.name) for x in choices):
                choices.append(
                    WargearChoice(
                        c.name[:200],
                        tuple(w[:200] for w in c.weapons),
                        c.points,
                        c.max_per_unit,
                        c.keywords,
                        c.max_in_roster,
                        c.removed_keywords,
                    )
                )
        if not choices:
            return None
        # what the player must pick: the group's minimum, less what its members' own minimums
        # fill (BattleScribe selects those itself; the roster does not record them); none for
        # a group inside an entry the unit may not take; a group inside a choice of another
        # option binds each time that choice is taken (``within``, checked by the validator),
        # ruling D20; a group the data may hide here: its requirement binds only where it is
        # shown (read as a list restriction by the restriction reader)
        filled = sum(max(self.constraint(m, "min") or 0, 0) for m in self._flatten(members, 0))
        bound = not in_choice or nested
        required = self.raised_min(group) if bound and not self.maybe_hidden(group) else 0
        lo = max(required - filled, 0)
        most = self._option_max(group) if self._max(group) > 0 else 0
        hi = MAX_MODELS if most is None else min(most, MAX_MODELS)
        if hi == 0:
            return None
        default_id = group.default_selection_id()
        default = next(
            (m.name.strip() for m in members if default_id and default_id in m.ids), None
        )
        if default_id is not None and default is None:
            # the data names a default that no member is (an id left behind by an edit of the
            # file): the datasheet's default settles the pick, which the roster does not
            # record; not a requirement on the list (ruling D21)
            lo = 0
        within_option, within = self._within if in_choice and self._within else ("", "")
        made = WargearOption(
            name=(group.name.strip() or "Wargear")[:200],
            model=model.name[:200] if model else "",
            choices=tuple(choices),
            min=min(lo, hi),
            max=hi,
            default=default[:200] if default else None,
            within_option=within_option,
            within=within,
        )
        sheet.options.append(made)
        return made

    def _flatten(self, members: list[Node], depth: int) -> Iterator[Node]:
        for m in members:
            if m.is_group:
                if depth < 4:
                    yield from self._flatten(
                        [x for x in self.children(m) if not self.hidden(x)], depth + 1
                    )
            elif name_key(m.name) != "warlord":
                yield m

    def option_single(
        self, node: Node, sheet: _Sheet, model: Leaf | None, limit: int, *, at_root: bool = False
    ) -> None:
        if not node.name.strip():
            return
        c = self.choice(node, at_root=at_root)
        if not c.keywords and not c.removed_keywords and not self._worth_offering(node):
            return
        sheet.options.append(
            WargearOption(
                name=c.name[:200],
                model=model.name[:200] if model else "",
                choices=(
                    WargearChoice(
                        c.name[:200],
                        tuple(c.weapons),
                        c.points,
                        c.max_per_unit,
                        c.keywords,
                        c.max_in_roster,
                        c.removed_keywords,
                    ),
                ),
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

    def points_tiers(
        self,
        sheet: _Sheet,
        lo: int,
        hi: int,
        root_cost: float,
        root_mods: list[tuple[Element, tuple[Element, ...], frozenset[str]]],
        base_ctx: Context,
    ) -> list[PointsTier]:
        """Points for every legal size from ``lo`` to ``hi``, compressed into tiers."""
        leaf_ids: dict[int, frozenset[str]] = {id(lf): lf.node.ids for lf in sheet.leaves}
        groups = list(groups_of(sheet.comp))
        categories_of = {id(lf): frozenset(self.node_categories(lf.node)) for lf in sheet.leaves}
        tiers: list[PointsTier] = []
        for n in range(lo, hi + 1):
            counts: dict[int, int] = {}
            if not fill_models(sheet.comp, n, counts):
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
                        return float(sum(counts.get(id(x), 0) for x in leaves_of(g)))
                if child in self.ws.category_names and child not in self.carried(sheet):
                    # a keyword no entry of the unit can carry (the Windriders' count of
                    # Warlock Skyrunners, a unit of another datasheet): 0 in every list
                    return 0.0
                return None

            ctx = base_ctx.with_counter(counter)
            points = self.apply_cost(root_cost, root_mods, ctx)
            for lf in sheet.leaves:
                per = self.apply_cost(lf.base_cost, lf.cost_mods, ctx)
                points += per * counts.get(id(lf), 0)
            value = min(round(points), 10_000)
            if tiers and tiers[-1].points == value and tiers[-1].max_models == n - 1:
                tiers[-1] = PointsTier(tiers[-1].min_models, n, value)
            else:
                tiers.append(PointsTier(n, n, value))
        return tiers

    def carried(self, sheet: _Sheet) -> frozenset[str]:
        """The categories an entry of ``sheet``'s unit may carry: linked by the root entry or
        any entry or group below it (through links), or added by a modifier there whatever
        its condition. Made once per datasheet; walked to the importer's depth limit."""
        if sheet.carried is not None:
            return sheet.carried
        found: set[str] = set()
        seen: set[tuple[str, str]] = set()
        stack = [(sheet.root, 0)]
        while stack:
            node, depth = stack.pop()
            key = (node.doc.id, node.id)
            if key in seen or depth > self.limits.max_depth:
                continue
            seen.add(key)
            found.update(node.category_ids())
            for m, _groups in node.modifiers():
                if m.get("field") == "category" and m.get("type") in ("add", "set-primary"):
                    found.add(m.get("value") or "")
            stack.extend((c, depth + 1) for c in self.children(node))
        sheet.carried = frozenset(found)
        return sheet.carried

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
            leaf = Leaf(root, root.name, 1, 1)
            leaf.profile = next(iter(sheet.profiles), "")
            sheet.comp.children.append(leaf)
            sheet.leaves.append(leaf)
        lo, hi = size_bounds(sheet.comp)
        if hi >= INF or hi > MAX_MODELS:
            self.report.warning(
                IssueCode.NO_UNIT_SIZE,
                Message(
                    N_("%(name)s: the data gives no maximum unit size; the minimum is used"),
                    {"name": root.name},
                ),
                file=file,
                entry=root.name,
            )
            hi = max(lo, 1)
        if lo < 1:
            lo = 1
        if hi < lo:
            self.report.warning(
                IssueCode.DATASHEET_SKIPPED,
                Message(
                    N_(
                        "%(name)s: its composition is contradictory (min %(lo)s > max %(hi)s); "
                        "skipped"
                    ),
                    {"name": root.name, "lo": lo, "hi": hi},
                ),
                file=file,
                entry=root.name,
            )
            return None

        tiers = self.points_tiers(sheet, lo, hi, root_cost, root_mods, self.ctx)
        walked = self.walked[root.id or slug(root.name)] = _Walked(
            sheet, root_cost, root_mods, lo, hi
        )
        if self._trace is not None:
            self._trace.events.append(("walked", root.id or slug(root.name), walked))
        if not tiers:
            self.report.warning(
                IssueCode.DATASHEET_SKIPPED,
                Message(
                    N_(
                        "%(name)s: no unit size between %(lo)s and %(hi)s fits its composition; "
                        "skipped"
                    ),
                    {"name": root.name, "lo": lo, "hi": hi},
                ),
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
                Message(
                    N_("%(name)s: no Unit profile (M, T, Sv, W, Ld, OC) found"), {"name": root.name}
                ),
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
        leader_of, conditional = leader_targets(sheet.leader_text)
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
                extra_leader=extra_leader(sheet.leader_text),
                two_leaders_from=sheet.two_leaders_from,
                transport_capacity=sheet.transport,
                character="character" in kw_keys,
                epic_hero="epic hero" in kw_keys,
                battleline="battleline" in kw_keys,
                dedicated_transport="dedicated transport" in kw_keys,
                legends="[legends]" in root.name.lower()
                or self.hidden(root, self.ctx.with_legends(False)),
                source=root.doc.name,
                max_in_roster=self.roster_limit(root),
                no_warlord="character" in kw_keys and self.warlord_hidden(root),
            )
        except ProfileError as exc:
            self.report.warning(
                IssueCode.DATASHEET_SKIPPED,
                Message(
                    N_("%(name)s: skipped (%(reason)s)"), {"name": root.name, "reason": str(exc)}
                ),
                file=file,
                entry=root.name,
            )
            return None
