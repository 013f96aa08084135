"""The linked BattleScribe data: documents, link resolution, entries, modifiers, conditions.

A :class:`Workspace` holds every parsed document and resolves ``targetId`` references the way
BattleScribe does: first in the document that holds the link, then in the game system, then in
the catalogues it links (``catalogueLinks``, followed transitively). A :class:`Node` is a
selection entry or group *as reached*, i.e. together with the ``entryLink`` that brought us to
it (a link adds its own constraints, modifiers, categories and children to its target).

Modifiers are applied only when their conditions can be decided (three-valued logic: ``True``
/ ``False`` / ``None`` for "depends on the rest of the roster"): what the primary catalogue is,
which force we build (the matched-play Army Roster, not Crusade or Boarding Actions), when
pricing a unit how many models of each type it has, and, when a detachment is assumed (a
:meth:`Context.in_detachment`), which detachment the roster has chosen: a condition counting a
detachment entry in the roster or the force counts 1 for the chosen one and 0 for every other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol
from xml.etree.ElementTree import Element

from app.catalog.bsdata.files import Document

__all__ = ["SKIPPED_NAMES", "CensusRecorder", "Context", "Node", "Workspace", "all3", "any3"]

# Groups and entries that only serve Crusade bookkeeping (BSData conventions, ruling D5).
SKIPPED_NAMES = frozenset(
    {"crusade", "weapon modifications", "weapon upgrades", "battle scars", "battle honours"}
)
# Where a document holds entries: each child of these is an entry, a group or a link.
_ENTRY_BOXES = ("selectionEntries", "selectionEntryGroups", "entryLinks")
_SHARED_BOXES = ("sharedSelectionEntries", "sharedSelectionEntryGroups")
_ENTRY_TAGS = frozenset({"selectionEntry", "selectionEntryGroup", "entryLink"})

Tri = bool | None


def all3(values: Iterable[Tri]) -> Tri:
    result: Tri = True
    for v in values:
        if v is False:
            return False
        if v is None:
            result = None
    return result


def any3(values: Iterable[Tri]) -> Tri:
    result: Tri = False
    for v in values:
        if v is True:
            return True
        if v is None:
            result = None
    return result


def _num(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def compare(kind: str, count: float, value: float) -> Tri:
    if kind == "atLeast":
        return count >= value
    if kind == "atMost":
        return count <= value
    if kind == "greaterThan":
        return count > value
    if kind == "lessThan":
        return count < value
    if kind == "equalTo":
        return count == value
    if kind == "notEqualTo":
        return count != value
    return None


# Counter(scope, child_id, include_children) -> the number of selections, or None (unknown).
Counter = Callable[[str, str], float | None]


class CensusRecorder(Protocol):
    """Told of every condition the importer evaluates (:mod:`.census`)."""

    def seen(self, condition: Element, decided: bool, detachments: frozenset[str]) -> None: ...

    def deferred(self, condition: Element) -> None: ...


# Scopes in which a roster holds its detachment: counting a detachment there is known once the
# detachment is chosen.
ROSTER_SCOPES = frozenset({"roster", "force"})


@dataclass(frozen=True, slots=True)
class Context:
    """What is known when evaluating a condition. ``detachments``: the ids of every detachment
    entry of the data; ``chosen``: the ids of the roster's detachment (``None``: not known)."""

    primary_id: str
    force_id: str | None
    force_ids: frozenset[str]
    count: Counter | None = None
    detachments: frozenset[str] = frozenset()
    chosen: frozenset[str] | None = None
    legends: bool = True

    # built field by field: ``dataclasses.replace`` reads the fields' list at each call, and
    # the detachment reader and the pricing make thousands of contexts per import (issue 17)
    def with_legends(self, shown: bool) -> Context:
        """The same context in a roster that does (not) include Legends datasheets."""
        return Context(
            self.primary_id,
            self.force_id,
            self.force_ids,
            self.count,
            self.detachments,
            self.chosen,
            shown,
        )

    def with_counter(self, counter: Counter) -> Context:
        return Context(
            self.primary_id,
            self.force_id,
            self.force_ids,
            counter,
            self.detachments,
            self.chosen,
            self.legends,
        )

    def with_detachments(self, ids: frozenset[str]) -> Context:
        return Context(
            self.primary_id,
            self.force_id,
            self.force_ids,
            self.count,
            ids,
            self.chosen,
            self.legends,
        )

    def in_detachment(self, ids: frozenset[str] | None) -> Context:
        """The same context in a roster whose detachment is the entry with ``ids``."""
        return Context(
            self.primary_id,
            self.force_id,
            self.force_ids,
            self.count,
            self.detachments,
            ids,
            self.legends,
        )


class Workspace:
    """Every document of one import, with cross-document id resolution."""

    def __init__(self, docs: Iterable[Document]) -> None:
        self.docs: dict[str, Document] = {}
        for d in docs:
            self.docs.setdefault(d.id, d)
        self.game_system: Document | None = next(
            (d for d in self.docs.values() if d.kind == "gameSystem"), None
        )
        self._chains: dict[str, tuple[Document, ...]] = {}
        self._resolved: dict[tuple[str, str], tuple[Element, Document] | None] = {}
        self._hiding: dict[int, list[tuple[Element, tuple[Element, ...]]]] = {}
        self._memos: dict[str, dict[Any, Any]] = {}
        self.battle_size_labels: dict[str, str] | None = None  # see restrictions.battle_sizes
        # each condition decided in a context without a counter: context -> id -> value (the
        # data and such a context never change during an import)
        self._decided: dict[Context, dict[int, Tri]] = {}
        self.category_names: dict[str, str] = {}
        self.hidden_categories: set[str] = set()  # e.g. flags such as "X is the Warlord"
        self.force_names: dict[str, str] = {}
        self.pts_type_ids: set[str] = set()
        # Roster options ("Show Legends", "Show Agents of the Imperium"...): id -> whether it
        # is the Legends one (ruling D11).
        self.options: dict[str, bool] = {}
        # each document's category entries, in document order (the restriction reader's
        # army limits read them for every catalogue)
        self.category_entries: dict[str, list[Element]] = {}
        for d in self.docs.values():
            # one walk of the tree, each tag's elements in document order (a walk per tag
            # cost twice as much, issue 17)
            categories: list[Element] = []
            self.category_entries[d.id] = categories
            for e in d.root.iter():
                tag = e.tag
                if tag == "selectionEntry":
                    oid, oname = e.get("id"), (e.get("name") or "").strip().lower()
                    if oid and oname.startswith("show ") and not oname.startswith("show/"):
                        self.options.setdefault(oid, "legends" in oname)
                elif tag == "categoryEntry":
                    categories.append(e)
                    cid, name = e.get("id"), e.get("name")
                    if cid and name:
                        self.category_names.setdefault(cid, name)
                    if cid and e.get("hidden") == "true":
                        self.hidden_categories.add(cid)
                elif tag == "forceEntry":
                    fid, name = e.get("id"), e.get("name")
                    if fid and name:
                        self.force_names.setdefault(fid, name)
                elif (
                    tag == "costType"
                    and (e.get("name") or "").strip().lower() == "pts"
                    and e.get("id")
                ):
                    self.pts_type_ids.add(e.get("id") or "")
        self.census: CensusRecorder | None = None  # set by the census command only
        self._never: frozenset[str] | None = None
        self.army_force_id = next(
            (fid for fid, n in self.force_names.items() if "army roster" in n.lower()),
            next(iter(self.force_names), None),
        )

    def chain(self, doc: Document) -> tuple[Document, ...]:
        """Where ids referenced from ``doc`` are looked up, in order."""
        cached = self._chains.get(doc.id)
        if cached is not None:
            return cached
        order: list[Document] = [doc]
        if self.game_system is not None and self.game_system is not doc:
            order.append(self.game_system)
        queue = [doc]
        seen = {doc.id}
        while queue:
            current = queue.pop(0)
            for target, _ in current.links():
                linked = self.docs.get(target)
                if linked is not None and linked.id not in seen:
                    seen.add(linked.id)
                    order.append(linked)
                    queue.append(linked)
        result = tuple(order)
        self._chains[doc.id] = result
        return result

    def resolve(self, target_id: str, doc: Document) -> tuple[Element, Document] | None:
        key = (target_id, doc.id)
        try:
            return self._resolved[key]
        except KeyError:
            pass
        result: tuple[Element, Document] | None = None
        for d in self.chain(doc):
            found = d.ids.get(target_id)
            if found is not None:
                result = (found, d)
                break
        self._resolved[key] = result
        return result

    def memo(self, name: str) -> dict[Any, Any]:
        """A cache named ``name`` that lives as long as this import (keys may be ids of the
        documents' elements, which live as long)."""
        return self._memos.setdefault(name, {})

    def hide_modifiers(self, elem: Element) -> list[tuple[Element, tuple[Element, ...]]]:
        """The modifiers of ``elem`` that set ``hidden`` (see :func:`iter_modifiers`)."""
        key = id(elem)
        found = self._hiding.get(key)
        if found is None:
            found = self._hiding[key] = [
                (m, groups)
                for m, groups in iter_modifiers(elem)
                if m.get("field") == "hidden" and m.get("type") == "set"
            ]
        return found

    def is_pts(self, cost_or_field: Element | str) -> bool:
        if isinstance(cost_or_field, str):
            return cost_or_field in self.pts_type_ids
        type_id = cost_or_field.get("typeId") or ""
        if self.pts_type_ids:
            return type_id in self.pts_type_ids
        return (cost_or_field.get("name") or "").strip().lower() == "pts"

    # -- conditions ----------------------------------------------------------------------

    def record(self, census: CensusRecorder) -> None:
        """Tell ``census`` of every condition evaluated from now on (the census command; the
        plain import pays nothing for it)."""
        self.census = census
        decide = self.condition

        def recording(c: Element, ctx: Context, self_ids: frozenset[str]) -> Tri:
            decided = decide(c, ctx, self_ids)
            census.seen(c, decided is not None, ctx.detachments)
            return decided

        self.condition = recording  # type: ignore[method-assign]

    def condition(self, c: Element, ctx: Context, self_ids: frozenset[str]) -> Tri:
        kind = c.get("type") or ""
        scope = c.get("scope") or ""
        child = c.get("childId") or ""
        field = c.get("field") or ""
        value = _num(c.get("value"))
        if scope == "primary-catalogue" and kind in ("instanceOf", "notInstanceOf"):
            hit = child == ctx.primary_id
            return hit if kind == "instanceOf" else not hit
        if child in self.options and scope in ROSTER_SCOPES and field == "selections":
            if value is None:
                return None
            shown = ctx.legends if self.options[child] else True
            return compare(kind, 1.0 if shown else 0.0, value)
        if child in ctx.detachments:
            if ctx.chosen is None or scope not in ROSTER_SCOPES:
                return None
            hit = child in ctx.chosen
            if kind in ("instanceOf", "notInstanceOf"):
                return hit if kind == "instanceOf" else not hit
            if field == "selections" and value is not None:
                return compare(kind, 1.0 if hit else 0.0, value)
            return None
        if child in self.force_names:
            if kind in ("instanceOf", "notInstanceOf") and scope in ("force", "roster"):
                hit = child == ctx.force_id
                return hit if kind == "instanceOf" else not hit
            if field == "forces" and value is not None:
                return compare(kind, 1.0 if child == ctx.force_id else 0.0, value)
        if field == "selections" and value is not None and child in self.never_selected():
            return compare(kind, 0.0, value)  # a Crusade-only entry: never in the list (D15)
        if (
            field == "selections"
            and value is not None
            and ctx.count is not None
            and (scope in ("self", "unit", "root-entry", "parent") or scope in self_ids)
        ):
            counted = ctx.count(scope, child)
            if counted is not None:
                return compare(kind, counted, value)
        return None

    # -- entries a matched-play list never holds (ruling D15) ----------------------------

    def never_selected(self) -> frozenset[str]:
        """The ids of the entries (and links) a matched-play Army Roster never holds: every
        place the data offers them is inside Crusade bookkeeping (a group named as in
        :data:`SKIPPED_NAMES`, D5) or inside an entry the data hides in the Army Roster force
        (the "Crusade" groups are hidden unless a Crusade force is in the roster); a shared
        entry counts as offered where a link to it is. Counting such an entry gives 0 in any
        scope, so a condition on it is decided. Computed once per import."""
        if self._never is None:
            self._never = frozenset()  # while computing: nothing is known to be absent
            self._never = self._find_never_selected()
        return self._never

    def _find_never_selected(self) -> frozenset[str]:
        # id -> the places it is offered: (inside a dead container, the shared root it is in)
        places: dict[str, list[tuple[bool, str | None]]] = {}
        # shared root id -> places of the links to it
        linked: dict[str, list[tuple[bool, str | None]]] = {}
        roots: set[str] = set()
        dead_roots: set[str] = set()
        ctx = Context("", self.army_force_id, frozenset(self.force_names))
        stack: list[tuple[Element, bool, str | None]] = []
        for d in self.docs.values():
            for box_name in (*_ENTRY_BOXES, *_SHARED_BOXES):
                box = d.root.find(box_name)
                if box is None:
                    continue
                shared = box_name in _SHARED_BOXES
                for e in box:
                    if e.tag not in _ENTRY_TAGS:
                        continue
                    rid = e.get("id") or ""
                    if shared and rid:
                        roots.add(rid)
                        # the shared definition itself is offered only through links
                        stack.append((e, False, rid))
                    else:
                        stack.append((e, False, None))
                    while stack:
                        elem, dead, root = stack.pop()
                        dead = dead or self._dead_here(elem, ctx)
                        eid = elem.get("id") or ""
                        if eid and root == eid:
                            if dead:
                                dead_roots.add(eid)  # hidden wherever it is linked
                        elif eid:
                            places.setdefault(eid, []).append((dead, root))
                        if elem.tag == "entryLink":
                            target = elem.get("targetId") or ""
                            if target:
                                linked.setdefault(target, []).append((dead, root))
                        for name in _ENTRY_BOXES:
                            inner = elem.find(name)
                            if inner is not None:
                                stack.extend((x, dead, root) for x in inner if x.tag in _ENTRY_TAGS)
        # a shared entry no file links (a library's, linked by a catalogue not among the
        # files) may be offered elsewhere: taken as live
        live_roots = {r for r in roots - dead_roots if not linked.get(r)}
        changed = True
        while changed:  # a shared root is live when a link to it sits in a live place
            changed = False
            for rid in roots - live_roots - dead_roots:
                if any(
                    not dead and (root is None or root in live_roots)
                    for dead, root in linked.get(rid, ())
                ):
                    live_roots.add(rid)
                    changed = True
        never: set[str] = set()
        for eid, where in places.items():
            if not any(not dead and (r is None or r in live_roots) for dead, r in where):
                never.add(eid)
        for rid in roots:
            if rid not in live_roots and linked.get(rid):
                never.add(rid)  # linked, but only from dead places (an unlinked one: unknown)
        return frozenset(never)

    def _dead_here(self, elem: Element, ctx: Context) -> bool:
        """Crusade bookkeeping by name, or hidden in the Army Roster by a condition on the
        force alone."""
        name = elem.get("name")
        if name and " ".join(name.lower().split()) in SKIPPED_NAMES:
            return True
        if elem.find("modifiers") is None and elem.find("modifierGroups") is None:
            return False
        for m, groups in iter_modifiers(elem):
            if m.get("field") != "hidden" or m.get("type") != "set" or m.get("value") != "true":
                continue
            if all3(self._force_only(h, ctx) for h in (*groups, m)) is True:
                return True
        return False

    def _force_only(self, holder: Element, ctx: Context) -> Tri:
        """``holder``'s conditions decided from the force built alone (else unknown)."""
        parts: list[Tri] = []
        conds = holder.find("conditions")
        if conds is not None:
            for c in conds.findall("condition"):
                if (c.get("childId") or "") not in self.force_names:
                    parts.append(None)
                else:
                    parts.append(Workspace.condition(self, c, ctx, frozenset()))
        groups = holder.find("conditionGroups")
        if groups is not None:
            parts.extend(self._force_only(g, ctx) for g in groups.findall("conditionGroup"))
        if holder.tag == "conditionGroup":
            kind = holder.get("type") or "and"
            if kind == "or":
                return any3(parts)
            if kind != "and":
                return None
        return all3(parts)

    def conditions_of(self, holder: Element, ctx: Context, self_ids: frozenset[str]) -> Tri:
        """All of ``holder``'s conditions and condition groups."""
        conds = holder.find("conditions")
        groups = holder.find("conditionGroups")
        if conds is None and groups is None:
            return True
        if ctx.count is not None or self.census is not None:
            return self._conditions_of(conds, groups, ctx, self_ids)
        # Without a counter a condition does not read ``self_ids``: decided once per context.
        if self._never is None:
            self.never_selected()  # what conditions read, computed before any is memoised
        table = self._decided.get(ctx)
        if table is None:
            table = self._decided[ctx] = {}
        return self._memo_conditions_of(conds, groups, ctx, table)

    def _memo_conditions_of(
        self,
        conds: Element | None,
        groups: Element | None,
        ctx: Context,
        table: dict[int, Tri],
    ) -> Tri:
        """:meth:`_conditions_of` in a context without a counter, each condition decided once
        (``table``: id of the condition -> its value in ``ctx``); stops at the first False."""
        return all3(self._memo_parts(conds, groups, ctx, table))

    def _memo_parts(
        self,
        conds: Element | None,
        groups: Element | None,
        ctx: Context,
        table: dict[int, Tri],
    ) -> Iterator[Tri]:
        if conds is not None:
            for c in conds.findall("condition"):
                key = id(c)
                try:
                    yield table[key]
                except KeyError:
                    v = table[key] = self.condition(c, ctx, frozenset())
                    yield v
        if groups is not None:
            for g in groups:
                parts = self._memo_parts(
                    g.find("conditions"), g.find("conditionGroups"), ctx, table
                )
                yield any3(parts) if g.get("type") == "or" else all3(parts)

    def _conditions_of(
        self,
        conds: Element | None,
        groups: Element | None,
        ctx: Context,
        self_ids: frozenset[str],
    ) -> Tri:
        parts: list[Tri] = []
        if conds is not None:
            parts.extend(self.condition(c, ctx, self_ids) for c in conds.findall("condition"))
        if groups is not None:
            parts.extend(self.condition_group(g, ctx, self_ids) for g in groups)
        return all3(parts)

    def condition_group(self, group: Element, ctx: Context, self_ids: frozenset[str]) -> Tri:
        parts: list[Tri] = []
        conds = group.find("conditions")
        if conds is not None:
            parts.extend(self.condition(c, ctx, self_ids) for c in conds.findall("condition"))
        subs = group.find("conditionGroups")
        if subs is not None:
            parts.extend(self.condition_group(g, ctx, self_ids) for g in subs)
        if group.get("type") == "or":
            return any3(parts)
        return all3(parts)

    def repeat_times(self, modifier: Element, ctx: Context, self_ids: frozenset[str]) -> Tri | int:
        """How many times a modifier applies through its repeats (1 without repeats)."""
        holder = modifier.find("repeats")
        if holder is None:
            return 1
        total = 0
        for r in holder.findall("repeat"):
            per = _num(r.get("value")) or 0
            times = _num(r.get("repeats")) or 1
            if per <= 0 or ctx.count is None:
                return None
            scope = r.get("scope") or ""
            if (r.get("childId") or "") in self.never_selected():
                continue  # counts 0: never in a matched-play list (D15)
            if not (scope in ("self", "unit", "root-entry", "parent") or scope in self_ids):
                return None
            counted = ctx.count(scope, r.get("childId") or "")
            if counted is None:
                return None
            steps = counted / per
            whole = int(steps) if r.get("roundUp") != "true" else -int(-steps // 1)
            total += int(whole * times)
        return total


def iter_modifiers(holder: Element) -> list[tuple[Element, tuple[Element, ...]]]:
    """Each modifier of ``holder`` with the modifier groups around it (whose conditions also
    apply), in document order."""
    mods = holder.find("modifiers")
    mgroups = holder.find("modifierGroups")
    if mods is None and mgroups is None:
        return []
    out: list[tuple[Element, tuple[Element, ...]]] = []
    _walk_modifiers(mods, mgroups, (), out)
    return out


def _walk_modifiers(
    mods: Element | None,
    mgroups: Element | None,
    groups: tuple[Element, ...],
    out: list[tuple[Element, tuple[Element, ...]]],
) -> None:
    if mods is not None:
        out.extend((m, groups) for m in mods.findall("modifier"))
    if mgroups is not None:
        for g in mgroups.findall("modifierGroup"):
            _walk_modifiers(g.find("modifiers"), g.find("modifierGroups"), (*groups, g), out)


class Node:
    """A selection entry or group as reached (target element plus the link, if any)."""

    __slots__ = (
        "_constraints",
        "_holders",
        "_ids",
        "_mods",
        "doc",
        "elem",
        "id",
        "is_group",
        "link",
        "link_doc",
        "name",
        "type",
    )

    def __init__(
        self,
        elem: Element,
        doc: Document,
        link: Element | None = None,
        link_doc: Document | None = None,
    ) -> None:
        self.elem = elem
        self.doc = doc
        self.link = link
        self.link_doc = link_doc
        # read once (the walks ask for them many times; the elements never change)
        self.is_group: bool = elem.tag == "selectionEntryGroup"
        self.id: str = elem.get("id") or ""
        self.name: str = (elem.get("name") or (link.get("name") if link is not None else "")) or ""
        self.type: str = elem.get("type") or ""
        self._ids: frozenset[str] | None = None
        self._holders: tuple[tuple[Element, Document], ...] | None = None
        self._constraints: tuple[Element, ...] | None = None
        self._mods: list[tuple[Element, tuple[Element, ...]]] | None = None

    @property
    def ids(self) -> frozenset[str]:
        ids = self._ids
        if ids is None:
            out = {self.id}
            if self.link is not None and self.link.get("id"):
                out.add(self.link.get("id") or "")
            ids = self._ids = frozenset(out)
        return ids

    @property
    def statically_hidden(self) -> bool:
        return self.elem.get("hidden") == "true" or (
            self.link is not None and self.link.get("hidden") == "true"
        )

    def holders(self) -> tuple[tuple[Element, Document], ...]:
        """The elements whose children describe this node: the target, then the link."""
        holders = self._holders
        if holders is None:
            if self.link is None:
                holders = ((self.elem, self.doc),)
            else:
                holders = ((self.elem, self.doc), (self.link, self.link_doc or self.doc))
            self._holders = holders
        return holders

    def children_of(self, container: str, tag: str) -> Iterator[tuple[Element, Document]]:
        for holder, doc in self.holders():
            box = holder.find(container)
            if box is not None:
                for child in box.findall(tag):
                    yield child, doc

    def constraints(self) -> tuple[Element, ...]:
        found = self._constraints
        if found is None:
            found = self._constraints = tuple(
                c for c, _ in self.children_of("constraints", "constraint")
            )
        return found

    def modifiers(self) -> list[tuple[Element, tuple[Element, ...]]]:
        """The target's modifiers, then the link's (read once per node: callers only read the
        list; the builders of one import share the nodes children are read as)."""
        mods = self._mods
        if mods is None:
            holders = self.holders()
            mods = iter_modifiers(holders[0][0])
            if len(holders) > 1:
                mods = mods + iter_modifiers(holders[1][0])
            self._mods = mods
        return mods

    def category_ids(self) -> list[str]:
        return [
            c.get("targetId") or "" for c, _ in self.children_of("categoryLinks", "categoryLink")
        ]

    def category_links(self) -> list[Element]:
        return [c for c, _ in self.children_of("categoryLinks", "categoryLink")]

    def costs(self) -> list[Element]:
        """Cost elements: the link's override the target's of the same type."""
        by_type: dict[str, Element] = {}
        for holder, _ in self.holders():
            box = holder.find("costs")
            if box is not None:
                for c in box.findall("cost"):
                    by_type[c.get("typeId") or c.get("name") or ""] = c
        return list(by_type.values())

    def default_selection_id(self) -> str | None:
        for holder, _ in reversed(self.holders()):
            value = holder.get("defaultSelectionEntryId")
            if value and value != "none":
                return value
        return None
