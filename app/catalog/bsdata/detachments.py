"""Detachments, their enhancements, and what choosing a detachment changes on a datasheet.

The detachments are the entries under the root "Detachment" entry of the primary catalogue,
or of the catalogue whose root entries it imports as its parent (a chapter catalogue offers the
Space Marines detachments, minus those hidden for it by ``primary-catalogue`` conditions).
Each detachment is then assumed chosen in turn (:meth:`Context.in_detachment`) and every
datasheet whose modifiers name a detachment is read again: whether it may be taken, its
keywords (made Battleline...), its limit of copies and its points by unit size. Only what
differs from the datasheet as read without a detachment is kept (a
:class:`DetachmentVariant`).

Who may take an enhancement comes from its "hidden unless the bearer is X" modifiers, read in
its own detachment: keyword conditions become a :class:`KeywordRule`, conditions decided by
the detachment or the primary catalogue are applied, and the rest (roster counts, uniqueness)
do not restrict the bearer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from xml.etree.ElementTree import Element

from app.catalog.bsdata.build import FACTION_PREFIX, NON_KEYWORDS, Builder
from app.catalog.bsdata.model import Context, Node
from app.catalog.bsdata.report import IssueCode
from app.engine.errors import N_, Message
from app.engine.wh40k10e.army.catalog import (
    MAX_BEARERS,
    Datasheet,
    DetachmentVariant,
    Enhancement,
    KeywordRule,
    PointsTier,
)
from app.engine.wh40k10e.army.names import name_key

__all__ = ["DetachmentEntry", "DetachmentReader"]


@dataclass(frozen=True, slots=True)
class DetachmentEntry:
    """A detachment offered: its name, entry id and every id a condition may name it by."""

    name: str
    id: str
    ids: frozenset[str]


class DetachmentReader:
    """Reads the detachments of one catalogue being built, with the builder's access."""

    def __init__(self, builder: Builder) -> None:
        self.b = builder
        self.offered: list[DetachmentEntry] = []
        self.hidden_ids: set[str] = set()  # detachments hidden for this catalogue
        self._all_ids: frozenset[str] | None = None
        # context() by the ids of its detachment, made once per :meth:`find` (the variants of
        # every datasheet ask for the same ones)
        self._contexts: dict[frozenset[str] | None, Context] = {}

    # -- which detachments ------------------------------------------------------------

    @property
    def all_ids(self) -> frozenset[str]:
        """Every detachment entry id met (offered or hidden), once :meth:`find` has run."""
        if self._all_ids is None:
            ids: set[str] = set(self.hidden_ids)
            for d in self.offered:
                ids |= d.ids
            self._all_ids = frozenset(ids)
        return self._all_ids

    def context(self, entry: DetachmentEntry | None) -> Context:
        """The builder's context in a roster of ``entry`` (``None``: not known)."""
        key = entry.ids if entry is not None else None
        ctx = self._contexts.get(key)
        if ctx is None:
            ctx = self._contexts[key] = self.b.ctx.with_detachments(self.all_ids).in_detachment(key)
        return ctx

    def find(self, roots: Sequence[Node]) -> list[DetachmentEntry]:
        """The detachments offered by the root "Detachment" entries of ``roots``."""
        for root in roots:
            if root.is_group or "detachment" not in name_key(root.name):
                continue
            if root.type not in ("upgrade", "") or self.b.hidden(root):
                continue
            for node in self._entries(root, 0, hidden=True):
                self.hidden_ids.update(node.ids)
            for node in self._entries(root, 0):
                name = node.name.strip()[:200]
                if not name or any(name_key(d.name) == name_key(name) for d in self.offered):
                    continue
                self.offered.append(DetachmentEntry(name, node.id, node.ids))
        self._all_ids = None
        self._contexts.clear()
        return self.offered

    def _entries(self, node: Node, depth: int, *, hidden: bool = False) -> Iterator[Node]:
        """The detachment entries under the root "Detachment" entry (with ``hidden``: only
        those hidden for this primary catalogue, e.g. another chapter's)."""
        if depth > 6:
            return
        for child in self.b.children(node):
            is_hidden = self.b.hidden(child)
            if child.is_group:
                if not is_hidden or hidden:
                    yield from self._entries(child, depth + 1, hidden=hidden)
            elif depth > 0 and child.type in ("upgrade", "") and is_hidden == hidden:
                yield child

    # -- what a detachment changes on a datasheet ---------------------------------------

    def _names_a_detachment(self, modifier: Element, groups: tuple[Element, ...]) -> bool:
        ids = self.all_ids
        for holder in (*groups, modifier):
            for c in holder.iter("condition"):
                if (c.get("childId") or "") in ids:
                    return True
        return False

    def variants(self, sheet: Datasheet, root: Node) -> tuple[DetachmentVariant, ...]:
        """What each offered detachment changes on ``sheet`` (built from ``root``)."""
        if not self.offered:
            return ()
        walked = self.b.walked.get(sheet.id)
        mods = list(root.modifiers())
        shape = any(self._names_a_detachment(m, g) for m, g in mods)
        cost_mods = list(walked.root_mods) if walked is not None else []
        if walked is not None:
            for leaf in walked.sheet.leaves:
                cost_mods.extend(leaf.cost_mods)
        priced = any(self._names_a_detachment(m, g) for m, g, _ in cost_mods)
        if not shape and not priced:
            return ()
        base_categories = self.b.node_categories(root)
        out: list[DetachmentVariant] = []
        for entry in self.offered:
            ctx = self.context(entry)
            available = not self.b.hidden(root, ctx)
            keywords: tuple[str, ...] | None = None
            categories = self.b.node_categories(root, ctx)
            if categories != base_categories:
                keywords = self._keywords(sheet, base_categories, categories)
            limit = self.b.roster_limit(root, ctx)
            if limit == sheet.max_in_army:
                limit = None
            points: tuple[PointsTier, ...] = ()
            if priced and walked is not None:
                tiers = self.b.points_tiers(
                    walked.sheet, walked.lo, walked.hi, walked.root_cost, walked.root_mods, ctx
                )
                if tiers and tuple(tiers) != sheet.points:
                    points = tuple(tiers)
            if available and keywords in (None, sheet.keywords) and limit is None and not points:
                continue
            out.append(
                DetachmentVariant(
                    detachment=entry.name,
                    available=available,
                    keywords=keywords if keywords != sheet.keywords else None,
                    max_in_roster=limit,
                    points=points,
                )
            )
        return tuple(out)

    def _keywords(self, sheet: Datasheet, before: list[str], after: list[str]) -> tuple[str, ...]:
        """``sheet``'s keywords with the categories a detachment adds or removes."""
        keywords = list(sheet.keywords)
        for cid in after:
            if cid not in before:
                name = self.b.category_name(cid).strip()
                if (
                    name
                    and not name.startswith(FACTION_PREFIX)
                    and name not in keywords
                    and name_key(name) not in NON_KEYWORDS
                ):
                    keywords.append(name[:200])
        for cid in before:
            if cid not in after:
                name = self.b.category_name(cid).strip()
                if name in keywords:
                    keywords.remove(name)
        return tuple(keywords)

    # -- enhancements -------------------------------------------------------------------

    def enhancements(
        self, own_docs: frozenset[str], characters: set[str] | None = None
    ) -> list[Enhancement]:
        """The enhancements of the offered detachments, from the Enhancements groups of the
        catalogue, its parent (``own_docs``: their ids) and its libraries. ``characters``: ids
        of the Character datasheets; a group linked from other datasheets too (e.g. vehicle
        upgrades of a detachment) is not restricted to Characters."""
        b = self.b
        out: list[Enhancement] = []
        seen: set[tuple[str, str]] = set()
        # Another faction's catalogue (imported for its allied units) is imported on its own.
        groups = {
            key: node
            for key, node in b.enhancement_groups.items()
            if node.doc.id in own_docs or node.doc.library
        }
        for doc_id in own_docs:
            doc = b.ws.docs.get(doc_id)
            holder = doc.root.find("sharedSelectionEntryGroups") if doc is not None else None
            if doc is None or holder is None:
                continue
            for g in holder.findall("selectionEntryGroup"):
                if name_key(g.get("name") or "").endswith("enhancements"):
                    node = Node(g, doc)
                    groups.setdefault((doc.id, node.id), node)
        for key, node in groups.items():
            bearers = b.enhancement_bearers.get(key, set())
            only_characters = characters is None or not bearers or bearers <= characters
            # the datasheets that link the group below one of their models: there the members'
            # scope "parent" is that model, elsewhere the unit (a group is no selection), D25
            on_models = b.enhancement_model_bearers.get(key, set())
            found: list[Enhancement] = []
            self._enhancements_in(node, None, (), found, seen, 0, on_models=on_models)
            out.extend(e if only_characters else replace(e, characters_only=False) for e in found)
        return out

    def _entry_named(self, name: str) -> DetachmentEntry | None:
        key = name_key(name)
        return next((d for d in self.offered if name_key(d.name) == key), None)

    def _detachment_of(self, node: Node) -> str | None:
        """The detachment an Enhancements group belongs to: the one its visibility conditions
        name, else the one its name says ("X Enhancements"). ``""``: a detachment this
        catalogue does not offer (another chapter's)."""
        for m, groups in node.modifiers():
            for holder in (*groups, m):
                for c in holder.iter("condition"):
                    child = c.get("childId") or ""
                    for d in self.offered:
                        if child in d.ids:
                            return d.name
                    if child in self.hidden_ids:
                        return ""
        name = name_key(node.name)
        for suffix in (" enhancements", " enhancement"):
            if name.endswith(suffix):
                name = name[: -len(suffix)]
        found = self._entry_named(name)
        return found.name if found is not None else None

    def _enhancements_in(
        self,
        node: Node,
        detachment: str | None,
        group_rules: tuple[KeywordRule | bool, ...],
        out: list[Enhancement],
        seen: set[tuple[str, str]],
        depth: int,
        *,
        on_models: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        b = self.b
        if depth > 6 or b.hidden(node):
            return
        found = self._detachment_of(node)
        if found == "":
            return  # enhancements of a detachment this catalogue does not offer
        here = found or detachment
        ctx = self.context(self._entry_named(here) if here else None)
        if node.is_group:
            rules = (*group_rules, self.visibility_rule(node, ctx))
            for child in b.children(node):
                self._enhancements_in(child, here, rules, out, seen, depth + 1, on_models=on_models)
            return
        if here is None:
            b.report.warning(
                IssueCode.ENHANCEMENT_DETACHMENT_UNKNOWN,
                Message(
                    N_("enhancement %(name)s: no detachment found for it; not imported"),
                    {"name": repr(node.name)},
                ),
                file=node.doc.filename,
                entry=node.name,
            )
            return
        rule = _and((*group_rules, self.visibility_rule(node, ctx)))
        if rule is False:
            return
        key = (name_key(here), name_key(node.name))
        if key in seen or not node.name.strip():
            return
        seen.add(key)
        points = b.apply_cost(b.pts(node), b.cost_modifiers(node), ctx)
        # the keywords it gives its bearer unit (ruling D25), not the data's hidden display
        # flags; a "parent" category is the unit's where the group is linked from the root
        # entry, a model's (not read) on the datasheets that link it below a model
        added, _ = b.unit_categories(node, at_root=True, visible_only=True, ctx=ctx)
        model_bearers: tuple[str, ...] = ()
        if added and on_models:
            below, _ = b.unit_categories(node, visible_only=True, ctx=ctx)
            if below != added:
                model_bearers = tuple(sorted(on_models))[:MAX_BEARERS]
        out.append(
            Enhancement(
                name=node.name.strip()[:200],
                points=min(int(points), 10_000),
                detachment=here,
                eligibility=None if rule is True else rule,
                keywords=added,
                model_bearers=model_bearers,
            )
        )

    def visibility_rule(self, node: Node, ctx: Context) -> KeywordRule | bool:
        """Who may take an entry, from its "hidden unless the bearer is X" modifiers."""
        hides: list[KeywordRule | bool] = []
        for m, groups in node.modifiers():
            if m.get("field") != "hidden" or m.get("type") != "set" or m.get("value") != "true":
                continue
            parts = [self._formula(g, node.ids, ctx) for g in groups]
            parts.append(self._formula(m, node.ids, ctx))
            hides.append(_and(parts))
        return _not(_or(hides))

    def _formula(
        self, holder: Element, self_ids: frozenset[str], ctx: Context
    ) -> KeywordRule | bool:
        parts: list[KeywordRule | bool] = []
        conds = holder.find("conditions")
        if conds is not None:
            parts.extend(self._literal(c, self_ids, ctx) for c in conds.findall("condition"))
        groups = holder.find("conditionGroups")
        if groups is not None:
            for g in groups.findall("conditionGroup"):
                parts.append(self._formula(g, self_ids, ctx))
        if holder.tag == "conditionGroup" and holder.get("type") == "or":
            return _or(parts)
        return _and(parts)

    def _literal(self, c: Element, self_ids: frozenset[str], ctx: Context) -> KeywordRule | bool:
        ws = self.b.ws
        decided = ws.condition(c, ctx, self_ids)
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
            name = ws.category_names.get(child)
            if name is None:
                for d in ws.docs.values():
                    el = d.ids.get(child)
                    if el is not None and el.get("name"):
                        name = el.get("name")
                        break
            if name:
                if name.startswith(FACTION_PREFIX):
                    name = name[len(FACTION_PREFIX) :]
                lit = KeywordRule.has(name.strip()[:200])
                return lit if kind == "instanceOf" else KeywordRule.negate(lit)
        return False  # depends on the rest of the roster: does not restrict the bearer


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
