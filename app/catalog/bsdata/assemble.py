"""One catalogue from one primary (non-library) catalogue document: its datasheets, its Army
Faction, its detachments with their enhancements, and what each detachment changes.

A catalogue's root entries are its own and those of every catalogue it links with
``importRootEntries``. Its Army Faction is the Faction keyword its own datasheets share (a
chapter's datasheets are both Adeptus Astartes and Blood Angels: the tie goes to the keyword
most datasheets of the whole catalogue have, so a Blood Angels list is an Adeptus Astartes army
of Space Marines and Blood Angels units). A linked catalogue of that same faction is its
*parent*: its detachments and enhancements are offered too (with the visibility conditions that
depend on which catalogue is primary); another faction's catalogue (allies) is not.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Iterator
from dataclasses import replace

from app.catalog.bsdata.build import Builder, WorkLimitExceeded
from app.catalog.bsdata.detachments import DetachmentReader
from app.catalog.bsdata.files import Document, ImportLimits
from app.catalog.bsdata.leaders import canonical_leader_targets
from app.catalog.bsdata.model import Node, Workspace
from app.catalog.bsdata.report import IssueCode, Reporter
from app.catalog.bsdata.restrictions import RestrictionReader, only_detachments
from app.engine.errors import N_, Message
from app.engine.wh40k10e.army.catalog import (
    ArmyLimit,
    Catalogue,
    Datasheet,
    Detachment,
    Enhancement,
    Restriction,
    slug,
)
from app.engine.wh40k10e.army.names import name_key

__all__ = ["build_catalogue"]


def build_catalogue(
    ws: Workspace, primary: Document, reporter: Reporter, limits: ImportLimits
) -> Catalogue | None:
    """The catalogue of one primary (non-library) catalogue document."""
    builder = Builder(ws, primary, reporter, limits)
    root_docs: list[Document] = [primary]
    for target, import_roots in primary.links():
        linked = ws.docs.get(target)
        if linked is None:
            reporter.warning(
                IssueCode.MISSING_CATALOGUE_LINK,
                Message(
                    N_(
                        "%(name)s links the catalogue %(target)s, which was not uploaded; its "
                        "entries are missing"
                    ),
                    {"name": primary.name, "target": repr(target)},
                ),
                file=primary.filename,
                target=target,
            )
        elif import_roots:
            root_docs.append(linked)
    roots: list[tuple[Node, Document]] = []  # each root with the document that offers it
    seen: set[tuple[str, str]] = set()
    for doc in root_docs:
        for node in _root_nodes(builder, doc):
            key = (node.doc.id, node.id)
            if key not in seen:
                seen.add(key)
                roots.append((node, doc))

    sheets: list[Datasheet] = []
    offered_by: dict[str, str] = {}  # datasheet id -> id of the document offering it
    root_of: dict[str, Node] = {}
    for node, doc in roots:
        if node.is_group or node.type not in ("unit", "model") or builder.hidden(node):
            continue
        try:
            sheet = builder.root_datasheet(node)
        except WorkLimitExceeded:
            if builder.steps > limits.max_steps:
                raise
            reporter.warning(
                IssueCode.TOO_DEEP,
                Message(
                    N_("%(name)s: its entries link to each other too many times; skipped"),
                    {"name": node.name},
                ),
                file=node.doc.filename,
                entry=node.name,
            )
            continue
        if sheet is None or sheet.id in offered_by:
            continue
        sheets.append(sheet)
        offered_by[sheet.id] = doc.id
        root_of[sheet.id] = node

    faction = _army_faction(sheets, offered_by, primary)
    for i, s in enumerate(sheets):
        if not s.faction_keywords and offered_by[s.id] == primary.id:
            reporter.warning(
                IssueCode.FACTION_ASSUMED,
                Message(
                    N_(
                        "%(name)s has no Faction keyword in the data; it is given %(faction)s, "
                        "the faction of its catalogue"
                    ),
                    {"name": s.name, "faction": faction},
                ),
                file=primary.filename,
                entry=s.name,
            )
            sheets[i] = replace(s, faction_keywords=(faction,))

    # The primary catalogue and the linked catalogues of its faction (a chapter's parent).
    own_docs = {primary.id}
    for doc in root_docs[1:]:
        tally = Tally(k for s in sheets if offered_by[s.id] == doc.id for k in s.faction_keywords)
        if tally and tally.most_common(1)[0][0] == faction:
            own_docs.add(doc.id)

    builder.sheet_steps = 0
    reader = DetachmentReader(builder)
    found = reader.find([n for n, doc in roots if doc.id in own_docs])
    if not found:
        reporter.warning(
            IssueCode.NO_DETACHMENTS,
            Message(N_("%(name)s: no detachments found"), {"name": primary.name}),
            file=primary.filename,
        )
    for i, s in enumerate(sheets):
        builder.sheet_steps = 0
        variants = reader.variants(s, root_of[s.id])
        if variants:
            sheets[i] = replace(s, variants=variants)

    sheet_names = {i: s.name for s in sheets for i in root_of[s.id].ids}
    detachment_names = {i: d.name for d in found for i in d.ids}
    limits_reader = RestrictionReader(builder, reader.context(None), sheet_names, detachment_names)
    in_detachments = [(d.name, reader.context(d)) for d in found]
    for i, s in enumerate(sheets):
        builder.sheet_steps = 0
        try:
            restrictions = limits_reader.read(root_of[s.id])
            steps = limits_reader.points_steps(root_of[s.id], s)
            # wargear a Detachment unlocks (ruling D20)
            extra, unlocked = limits_reader.unlocked(root_of[s.id], in_detachments)
        except WorkLimitExceeded:
            if builder.steps > limits.max_steps:
                raise
            continue  # reported when the datasheet was read
        if extra:
            s = replace(s, wargear_options=(*s.wargear_options, *extra))
            restrictions = (*restrictions, *(r for r in unlocked if r not in restrictions))
            sheets[i] = replace(s, restrictions=restrictions)
        limit = limits_reader.limit(root_of[s.id], s.name) if s.max_in_roster is None else None
        if limit is not None:
            most, rules = limit
            s = replace(s, max_in_roster=most)
            restrictions = (*restrictions, *(r for r in rules if r not in restrictions))
        if restrictions:
            # a choice hidden in some Detachments that the datasheet does not offer (e.g. a
            # Detachment's "Tank Ace" marker, not wargear) is already unknown wargear (D21)
            restrictions = tuple(r for r in restrictions if _offered_or_kept(s, r))
        if restrictions or limit is not None:
            sheets[i] = replace(s, restrictions=restrictions)
        if steps:  # points that depend on the unit's wargear (ruling D28)
            sheets[i] = replace(sheets[i], points_steps=steps)

    # A category's own limits on the army (allies' points, "Assigned Agents"...), ruling M12.
    builder.sheet_steps = 0
    sheet_keys = [frozenset(name_key(k) for k in s.all_keywords()) for s in sheets]
    army_limits = tuple(
        lim
        for lim in limits_reader.army_limits(
            frozenset(name_key(k) for s in sheets for k in s.all_keywords())
        )
        if not _redundant(lim, sheets, sheet_keys)
    )

    by_detachment: dict[str, list[Enhancement]] = {}
    characters = {s.id for s in sheets if s.character}
    builder.sheet_steps = 0
    for e in reader.enhancements(frozenset(own_docs), characters):
        by_detachment.setdefault(e.detachment, []).append(e)
    detachments = [
        Detachment(d.name, faction, tuple(by_detachment.get(d.name, ())), d.id) for d in found
    ]

    by_key = {name_key(s.name): s.name for s in sheets}
    for i, s in enumerate(sheets):
        if s.leader_of:
            s = canonical_leader_targets(s, by_key)
            sheets[i] = s
        for target in s.leader_of:
            if name_key(target) not in by_key:
                reporter.warning(
                    IssueCode.LEADER_TARGET_UNKNOWN,
                    Message(
                        N_(
                            "%(name)s can lead %(target)s, which is not a datasheet of this "
                            "catalogue"
                        ),
                        {"name": s.name, "target": repr(target)},
                    ),
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
        limits=army_limits,
        required_options=True,  # the options' minimums read as ruling D20 says
    )


def _redundant(limit: ArmyLimit, sheets: list[Datasheet], sheet_keys: list[frozenset[str]]) -> bool:
    """A fixed limit on the units of a keyword that only one datasheet carries, no looser
    than that datasheet's own limit of copies in any detachment (a category named after the
    datasheet, as the Space Wolves data has): checking it would report the breach twice.
    ``sheet_keys``: the keywords of each of ``sheets`` (``name_key`` forms), read once."""
    if limit.steps or limit.points:
        return False
    key = name_key(limit.keyword)
    carriers = [s for s, keys in zip(sheets, sheet_keys, strict=True) if key in keys]
    if len({name_key(s.name) for s in carriers}) != 1:
        return False
    return all(
        s.max_in_army <= limit.base
        and all(s.in_detachment(v.detachment).max_in_army <= limit.base for v in s.variants)
        for s in carriers
    )


def _army_faction(sheets: list[Datasheet], offered_by: dict[str, str], primary: Document) -> str:
    """The Faction keyword the primary catalogue's own datasheets share most; a tie goes to
    the keyword most datasheets of the whole catalogue have."""
    everywhere: Tally[str] = Tally(k for s in sheets for k in s.faction_keywords)
    own: Tally[str] = Tally(
        k for s in sheets if offered_by[s.id] == primary.id for k in s.faction_keywords
    )
    tally = own or everywhere
    if not tally:
        return primary.name
    return max(tally, key=lambda k: (tally[k], everywhere[k]))


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


def _offered_or_kept(sheet: Datasheet, r: Restriction) -> bool:
    """Whether ``r`` is kept: every restriction except a choice the data hides by the
    Detachment alone that no option of ``sheet`` offers (ruling D21)."""
    if not (r.unavailable and r.entry and r.wargear and only_detachments(r.when)):
        return True
    key = name_key(r.wargear)
    return any(name_key(c.name) == key for o in sheet.wargear_options for c in o.choices)
