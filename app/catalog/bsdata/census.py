"""How many of the data's conditions the importer decides: the measure of ruling D1.

``python -m app.catalog.bsdata.census FILE_OR_FOLDER...`` imports the files as an upload would
(every non-library catalogue with the game system and the libraries) while a recorder notes
each condition the importer evaluates, then prints, by kind, how many conditions the files
hold and how many were:

- **decided at import**: evaluated to true or false at least once (the force, the primary
  catalogue, the detachment assumed, the roster options, the models of a unit being priced);
- **decided when validating**: kept as a :class:`RosterCondition` of a list restriction (the
  data's "add error" modifiers, ruling D12), which the validator decides on the list;
- **moot**: not decided itself, but its modifier is decided at import without it: an ``and``
  beside a condition on the force that is false in a matched-play Army Roster (Boarding
  Actions, Crusade), or an ``or`` beside one that is true (its value cannot change anything);
- **undecided**: evaluated but never decided (they leave the value unmodified);
- **not reached**: never evaluated (entries that are not read, e.g. Crusade-only ones).

Nothing of the files' text is printed: counts only.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import Element

from app.catalog.bsdata.assemble import build_catalogue
from app.catalog.bsdata.build import WorkLimitExceeded
from app.catalog.bsdata.files import Budget, Document, ImportLimits, read_document
from app.catalog.bsdata.model import Context, Tri, Workspace, all3, any3
from app.catalog.bsdata.report import Reporter
from app.engine.wh40k10e.army.names import name_key

__all__ = ["Census", "KindCount", "census_of", "main"]

KINDS = (
    "inside the unit (models, wargear)",
    "the bearer's keywords",
    "the force built",
    "other selections in the roster",
    "the primary catalogue",
    "the chosen detachment",
    "roster options (Show Legends...)",
    "a points total or another field",
    "the battle size",
)
SUFFIXES = (".gst", ".cat", ".gstz", ".catz")


@dataclass(slots=True)
class KindCount:
    total: int = 0
    at_import: int = 0
    when_validating: int = 0
    moot: int = 0
    undecided: int = 0

    @property
    def decided(self) -> int:
        return self.at_import + self.when_validating


@dataclass(slots=True)
class Census:
    kinds: dict[str, KindCount] = field(default_factory=lambda: {k: KindCount() for k in KINDS})
    reached: int = 0  # conditions the importer evaluated at least once
    reached_decided: int = 0  # ... and decided (true or false) at least once
    core_rule: int = 0  # counted "when validating": the core rule decides them (D1)
    never_counted: int = 0  # counted "at import": they count a Crusade-only entry (D15)
    never_holder: int = 0  # counted "moot": they sit on a Crusade-only entry (D15)
    priced: int = 0  # counted "at import": a count of a group of models when pricing (D28)

    @property
    def all(self) -> KindCount:
        out = KindCount()
        for k in self.kinds.values():
            out.total += k.total
            out.at_import += k.at_import
            out.when_validating += k.when_validating
            out.moot += k.moot
            out.undecided += k.undecided
        return out


class _Recorder:
    def __init__(self) -> None:
        self.decided: set[int] = set()
        self.reached: set[int] = set()
        self.validating: set[int] = set()
        self.detachments: set[str] = set()

    def seen(self, condition: Element, decided: bool, detachments: frozenset[str]) -> None:
        self.reached.add(id(condition))
        if decided:
            self.decided.add(id(condition))
        if detachments:
            self.detachments |= detachments

    def deferred(self, condition: Element) -> None:
        self.reached.add(id(condition))
        self.validating.add(id(condition))


def _battle_sizes(ws: Workspace) -> set[str]:
    ids: set[str] = set()
    for d in ws.docs.values():
        for e in d.root.iter("selectionEntryGroup"):
            if (e.get("name") or "").strip().lower() == "battle size":
                ids |= {x.get("id") or "" for x in e.iter("selectionEntry")}
    return ids


def _kind(c: Element, ws: Workspace, detachments: set[str], sizes: set[str]) -> str:
    scope = c.get("scope") or ""
    child = c.get("childId") or ""
    kind = c.get("type") or ""
    if scope == "primary-catalogue":
        return "the primary catalogue"
    if child in ws.force_names:
        return "the force built"
    if child in ws.options:
        return "roster options (Show Legends...)"
    if child in sizes:
        return "the battle size"
    if child in detachments:
        return "the chosen detachment"
    if (c.get("field") or "selections") not in ("selections", "forces"):
        return "a points total or another field"
    if scope in ("roster", "force"):
        return "other selections in the roster"
    if kind in ("instanceOf", "notInstanceOf") and child in ws.category_names:
        return "the bearer's keywords"
    return "inside the unit (models, wargear)"


# Kinds the importer decides whenever it meets them (ruling D1).
AT_IMPORT = frozenset(
    {
        "the bearer's keywords",
        "the force built",
        "the primary catalogue",
        "the chosen detachment",
        "roster options (Show Legends...)",
    }
)
MODELS_KIND = "inside the unit (models, wargear)"


def _model_ids(ws: Workspace) -> set[str]:
    ids = {"model"}
    for d in ws.docs.values():
        for e in d.root.iter("selectionEntry"):
            if e.get("type") == "model" and e.get("id"):
                ids.add(e.get("id") or "")
    return ids


class _Moot:
    """Whether a condition's modifier is decided at import without it (ruling D1): a sibling
    in an ``and`` (the modifier's own conditions, its modifier groups') is a condition on the
    force that is false in the matched-play Army Roster, or on a primary catalogue that is not
    among the files (false in every list they can build), or a sibling in an ``or`` is true."""

    CONTAINERS = frozenset(
        {
            "conditions",
            "conditionGroups",
            "conditionGroup",
            "modifierGroups",
            "modifierGroup",
            "modifiers",
            "modifier",
        }
    )

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.ctx = Context("", ws.army_force_id, frozenset(ws.force_names))
        # the catalogues a list can be built on (a library is never the primary one)
        self.primaries = frozenset(
            d.id for d in ws.docs.values() if d.kind != "gameSystem" and not d.library
        )
        self.parent: dict[int, Element] = {}
        for d in ws.docs.values():
            for p in d.root.iter():
                if p.tag in self.CONTAINERS:
                    for ch in p:
                        self.parent[id(ch)] = p
                elif p.tag in ("selectionEntry", "entryLink", "categoryEntry"):
                    for ch in p:
                        if ch.tag in ("modifiers", "modifierGroups"):
                            self.parent[id(ch)] = p

    def _static(self, c: Element) -> Tri:
        if c.tag == "conditionGroup":
            kind = c.get("type") or "and"
            if kind not in ("and", "or"):
                return None
            parts = [self._static(x) for x in _parts(c)]
            return any3(parts) if kind == "or" else all3(parts)
        child = c.get("childId") or ""
        kind = c.get("type") or ""
        if c.get("scope") == "primary-catalogue" and child not in self.primaries:
            if kind in ("instanceOf", "notInstanceOf"):
                return kind == "notInstanceOf"  # no list of these files is built on it
            return None
        if child not in self.ws.force_names:
            return None
        return Workspace.condition(self.ws, c, self.ctx, frozenset())  # not recorded

    def __call__(self, c: Element) -> bool:
        node = c
        while True:
            box = self.parent.get(id(node))
            holder = self.parent.get(id(box)) if box is not None else None
            if holder is None:
                return False
            kind = (holder.get("type") or "and") if holder.tag == "conditionGroup" else "and"
            # a "count" group is not decided by one member; the groups around it may be
            if kind in ("and", "or"):
                short = kind == "or"  # the value that decides the holder without ``node``
                if any(self._static(x) is short for x in _parts(holder) if x is not node):
                    return True
            if holder.tag != "conditionGroup":
                return self._groups_false(holder)
            node = holder

    def taken_once(self, c: Element, enhancements: set[str]) -> bool:
        """A condition hiding an enhancement once the roster holds one of it (and its
        companion, "unless this bearer holds it"): the data's way of saying "once per army",
        which the core rule ``enhancement-duplicate`` decides."""
        scope, kind, value = c.get("scope") or "", c.get("type"), c.get("value")
        army = scope in ("roster", "force") and (
            (kind == "atLeast" and value == "1") or (kind == "greaterThan" and value == "0")
        )
        # its companion: "unless this bearer has it" (shown to the unit that took it)
        bearer = scope == "parent" and kind == "lessThan" and value == "1"
        if not (army or bearer):
            return False
        node = c
        while node.tag != "modifier":
            found = self.parent.get(id(node))
            if found is None:
                return False
            node = found
        if node.get("field") != "hidden" or node.get("value") != "true":
            return False
        owner: Element | None = node
        while owner is not None and owner.tag not in ("selectionEntry", "entryLink"):
            owner = self.parent.get(id(owner))
        if owner is None or name_key(owner.get("name") or "") not in enhancements:
            return False
        return (c.get("childId") or "") in {owner.get("id"), owner.get("targetId")}

    def on_points(self, c: Element) -> bool:
        """Whether ``c`` is a condition of a points modifier (which pricing by size evaluates
        with the unit's model counts, ruling D2)."""
        node = c
        while node.tag != "modifier":
            found = self.parent.get(id(node))
            if found is None:
                return False
            node = found
        return self.ws.is_pts(node.get("field") or "")

    def _groups_false(self, modifier: Element) -> bool:
        """A modifier group around ``modifier`` whose own conditions are false."""
        box = self.parent.get(id(modifier))
        group = self.parent.get(id(box)) if box is not None else None
        while group is not None and group.tag == "modifierGroup":
            if all3(self._static(x) for x in _parts(group)) is False:
                return True
            box = self.parent.get(id(group))
            group = self.parent.get(id(box)) if box is not None else None
        return False


def _parts(holder: Element) -> list[Element]:
    out: list[Element] = []
    conds = holder.find("conditions")
    if conds is not None:
        out.extend(conds.findall("condition"))
    groups = holder.find("conditionGroups")
    if groups is not None:
        out.extend(groups.findall("conditionGroup"))
    return out


def census_of(docs: Sequence[Document], limits: ImportLimits | None = None) -> Census:
    """Import ``docs`` with a recorder and count the conditions by kind and outcome: a kind
    the importer decides (:data:`AT_IMPORT`, and the model counts of a unit, which price it),
    a condition kept for the validator (a restriction's), or undecided."""
    lim = limits or ImportLimits()
    ws = Workspace(docs)
    recorder = _Recorder()
    ws.record(recorder)
    reporter = Reporter()
    enhancements: set[str] = set()
    for d in docs:
        if d.kind == "catalogue" and not d.library:
            try:
                built = build_catalogue(ws, d, reporter, lim)
            except WorkLimitExceeded:
                continue
            if built is not None:
                enhancements |= {
                    name_key(e.name) for det in built.detachments for e in det.enhancements
                }
    sizes = _battle_sizes(ws)
    models = _model_ids(ws)
    moot = _Moot(ws)
    never = ws.never_selected()
    on_never: set[int] = set()  # conditions on (or below) an entry never in the list
    for d in ws.docs.values():
        for e in d.root.iter():
            if (
                e.tag in ("selectionEntry", "selectionEntryGroup", "entryLink")
                and (e.get("id") or "") in never
            ):
                on_never |= {id(x) for x in e.iter("condition")}
    out = Census()
    for d in ws.docs.values():
        for c in d.root.iter("condition"):
            kind = _kind(c, ws, recorder.detachments, sizes)
            count = out.kinds[kind]
            count.total += 1
            key = id(c)
            if key in recorder.reached:
                out.reached += 1
                if key in recorder.decided:
                    out.reached_decided += 1
            child = c.get("childId") or ""
            if kind in AT_IMPORT or (kind == MODELS_KIND and child in models):
                count.at_import += 1
            elif child in never and (c.get("field") or "selections") == "selections":
                count.at_import += 1  # Workspace.condition decides it wherever met: 0
                out.never_counted += 1
            elif key in on_never:
                count.moot += 1  # its modifier never applies in a matched-play list
                out.never_holder += 1
            elif key in recorder.validating:
                count.when_validating += 1
            elif kind == MODELS_KIND and key in recorder.decided and moot.on_points(c):
                count.at_import += 1  # a count of a group of models, decided when pricing
                out.priced += 1
            elif moot.taken_once(c, enhancements):
                count.when_validating += 1
                out.core_rule += 1
            elif moot(c):
                count.moot += 1
            else:
                count.undecided += 1
    return out


def _files(args: Iterable[str]) -> list[Path]:
    out: list[Path] = []
    for a in args:
        p = Path(a)
        if p.is_dir():
            out.extend(sorted(x for x in p.iterdir() if x.suffix.lower() in SUFFIXES))
        else:
            out.append(p)
    return out


def render(census: Census) -> str:
    head = (
        f"{'condition decides on':<36} {'total':>6} {'import':>7} {'validate':>8} {'moot':>6} "
        f"{'undecided':>9}"
    )
    lines = [head]
    for name, k in [*census.kinds.items(), ("all", census.all)]:
        lines.append(
            f"{name:<36} {k.total:>6} {k.at_import:>7} {k.when_validating:>8} {k.moot:>6} "
            f"{k.undecided:>9}"
        )
    total = census.all
    lines.append(
        f"decided: {total.decided} of {total.total} "
        f"({total.at_import} at import, {total.when_validating} when validating); "
        f"moot: {total.moot}; undecided: {total.undecided}"
    )
    if census.core_rule:
        lines.append(
            f"of those when validating, decided by the core rule (an enhancement once per "
            f"army): {census.core_rule}"
        )
    if census.never_counted or census.never_holder:
        lines.append(
            f"of those, on entries a matched-play list never holds (Crusade bookkeeping): "
            f"{census.never_counted} at import (they count one), {census.never_holder} moot "
            f"(they sit on one)"
        )
    if census.priced:
        lines.append(
            f"of those at import, counts of a group of models decided when pricing: {census.priced}"
        )
    lines.append(
        f"evaluated by this import: {census.reached}, of which decided where met: "
        f"{census.reached_decided}"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m app.catalog.bsdata.census FILE_OR_FOLDER...", file=sys.stderr)
        return 2
    limits = ImportLimits()
    budget = Budget.of(limits)
    docs = [read_document(p.name, p.read_bytes(), limits, budget) for p in _files(args)]
    print(render(census_of(docs, limits)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
