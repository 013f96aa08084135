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
from dataclasses import dataclass, replace
from typing import Protocol
from xml.etree.ElementTree import Element

from app.catalog.bsdata.files import Document

__all__ = ["CensusRecorder", "Context", "Node", "Workspace", "all3", "any3"]

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

    def with_legends(self, shown: bool) -> Context:
        """The same context in a roster that does (not) include Legends datasheets."""
        return replace(self, legends=shown)

    def with_counter(self, counter: Counter) -> Context:
        return replace(self, count=counter)

    def with_detachments(self, ids: frozenset[str]) -> Context:
        return replace(self, detachments=ids)

    def in_detachment(self, ids: frozenset[str] | None) -> Context:
        """The same context in a roster whose detachment is the entry with ``ids``."""
        return replace(self, chosen=ids)


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
        self.category_names: dict[str, str] = {}
        self.hidden_categories: set[str] = set()  # e.g. flags such as "X is the Warlord"
        self.force_names: dict[str, str] = {}
        self.pts_type_ids: set[str] = set()
        # Roster options ("Show Legends", "Show Agents of the Imperium"...): id -> whether it
        # is the Legends one (ruling D11).
        self.options: dict[str, bool] = {}
        for d in self.docs.values():
            for e in d.root.iter("selectionEntry"):
                oid, oname = e.get("id"), (e.get("name") or "").strip().lower()
                if oid and oname.startswith("show ") and not oname.startswith("show/"):
                    self.options.setdefault(oid, "legends" in oname)
            for e in d.root.iter("categoryEntry"):
                cid, name = e.get("id"), e.get("name")
                if cid and name:
                    self.category_names.setdefault(cid, name)
                if cid and e.get("hidden") == "true":
                    self.hidden_categories.add(cid)
            for e in d.root.iter("forceEntry"):
                fid, name = e.get("id"), e.get("name")
                if fid and name:
                    self.force_names.setdefault(fid, name)
            for e in d.root.iter("costType"):
                if (e.get("name") or "").strip().lower() == "pts" and e.get("id"):
                    self.pts_type_ids.add(e.get("id") or "")
        self.census: CensusRecorder | None = None  # set by the census command only
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
        for d in self.chain(doc):
            found = d.ids.get(target_id)
            if found is not None:
                return found, d
        return None

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

    def conditions_of(self, holder: Element, ctx: Context, self_ids: frozenset[str]) -> Tri:
        """All of ``holder``'s conditions and condition groups."""
        parts: list[Tri] = []
        conds = holder.find("conditions")
        if conds is not None:
            parts.extend(self.condition(c, ctx, self_ids) for c in conds.findall("condition"))
        groups = holder.find("conditionGroups")
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
            if not (scope in ("self", "unit", "root-entry", "parent") or scope in self_ids):
                return None
            counted = ctx.count(scope, r.get("childId") or "")
            if counted is None:
                return None
            steps = counted / per
            whole = int(steps) if r.get("roundUp") != "true" else -int(-steps // 1)
            total += int(whole * times)
        return total


def iter_modifiers(holder: Element) -> Iterator[tuple[Element, tuple[Element, ...]]]:
    """Each modifier of ``holder`` with the modifier groups around it (whose conditions also
    apply), in document order."""

    def walk(
        el: Element, groups: tuple[Element, ...]
    ) -> Iterator[tuple[Element, tuple[Element, ...]]]:
        mods = el.find("modifiers")
        if mods is not None:
            for m in mods.findall("modifier"):
                yield m, groups
        mgroups = el.find("modifierGroups")
        if mgroups is not None:
            for g in mgroups.findall("modifierGroup"):
                yield from walk(g, (*groups, g))

    yield from walk(holder, ())


class Node:
    """A selection entry or group as reached (target element plus the link, if any)."""

    __slots__ = ("doc", "elem", "link", "link_doc")

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

    @property
    def is_group(self) -> bool:
        return self.elem.tag == "selectionEntryGroup"

    @property
    def id(self) -> str:
        return self.elem.get("id") or ""

    @property
    def ids(self) -> frozenset[str]:
        out = {self.id}
        if self.link is not None and self.link.get("id"):
            out.add(self.link.get("id") or "")
        return frozenset(out)

    @property
    def name(self) -> str:
        return (
            self.elem.get("name") or (self.link.get("name") if self.link is not None else "")
        ) or ""

    @property
    def type(self) -> str:
        return self.elem.get("type") or ""

    @property
    def statically_hidden(self) -> bool:
        return self.elem.get("hidden") == "true" or (
            self.link is not None and self.link.get("hidden") == "true"
        )

    def holders(self) -> tuple[tuple[Element, Document], ...]:
        """The elements whose children describe this node: the target, then the link."""
        if self.link is None:
            return ((self.elem, self.doc),)
        return ((self.elem, self.doc), (self.link, self.link_doc or self.doc))

    def children_of(self, container: str, tag: str) -> Iterator[tuple[Element, Document]]:
        for holder, doc in self.holders():
            box = holder.find(container)
            if box is not None:
                for child in box.findall(tag):
                    yield child, doc

    def constraints(self) -> list[Element]:
        return [c for c, _ in self.children_of("constraints", "constraint")]

    def modifiers(self) -> Iterator[tuple[Element, tuple[Element, ...]]]:
        for holder, _ in self.holders():
            yield from iter_modifiers(holder)

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
