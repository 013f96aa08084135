"""The data's own list errors: BattleScribe's "add error" / "add warning" modifiers.

A datasheet (or a wargear entry inside it) may carry a modifier that adds an error message to
the roster when its conditions hold ("at most 1 per 10 models", "must be the Warlord"...).
They are read here as :class:`Restriction` values whose condition is a
:class:`RosterCondition`: what the importer can decide (the force built, the primary
catalogue, the roster options) is decided now, and what depends on the list (models and
wargear in the unit, units, keywords, Warlords, the chosen detachment in the army) is kept
for the validator. The message text of the data is never kept: the validator words the
condition itself (ruling D12). A modifier with a condition this reading cannot express is
left out and counted (:attr:`RestrictionReader.skipped`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from xml.etree.ElementTree import Element

from app.catalog.bsdata.build import FACTION_PREFIX, Builder
from app.catalog.bsdata.files import Document
from app.catalog.bsdata.model import SKIPPED_NAMES, Context, Node, Workspace, iter_modifiers
from app.engine.wh40k10e.army.catalog import (
    MAX_CONDITION_NAMES,
    MAX_POINTS_STEPS,
    ArmyLimit,
    Compare,
    ConditionOp,
    CountOf,
    Datasheet,
    LimitStep,
    LimitStepKind,
    PointsStep,
    Restriction,
    RestrictionSeverity,
    RosterCondition,
    WargearChoice,
    WargearOption,
)
from app.engine.wh40k10e.army.names import name_key

__all__ = [
    "MESSAGE_FIELDS",
    "RestrictionReader",
    "battle_sizes",
    "certain_steps",
    "only_detachments",
]

MESSAGE_FIELDS = {"error": RestrictionSeverity.ERROR, "warning": RestrictionSeverity.WARNING}
COMPARES = {
    "atLeast": Compare.AT_LEAST,
    "atMost": Compare.AT_MOST,
    "greaterThan": Compare.MORE_THAN,
    "lessThan": Compare.FEWER_THAN,
    "equalTo": Compare.EQUAL,
    "notEqualTo": Compare.NOT_EQUAL,
}
ARMY_SCOPES = frozenset({"roster", "force"})
UNIT_SCOPES = frozenset({"unit", "root-entry"})
MODEL_SCOPES = frozenset({"parent", "self", "model", "model-or-unit"})  # inside the unit
KEYWORD_SCOPES = frozenset({"ancestor", "self", "parent", "unit", "root-entry", "model-or-unit"})
MAX_DEPTH = 8  # entries below a datasheet searched for restrictions
MAX_PER_SHEET = 100
MAX_LINK_DEPTH = 32  # links followed when looking for message modifiers below an entry
MAX_LIMIT_MODIFIERS = 4  # roster-dependent modifiers of one limit read (2**4 combinations)
MAX_ARMY_LIMITS = 200  # category constraints read into one catalogue
# The battle sizes, told apart by the words of the data's entry ("2. Strike Force (2000 Point
# limit)"), as the roster's labels.
BATTLE_SIZE_WORDS = {
    "incursion": "Incursion",
    "strike force": "Strike Force",
    "onslaught": "Onslaught",
}
STEP_KINDS = {
    "set": LimitStepKind.SET,
    "increment": LimitStepKind.INCREMENT,
    "decrement": LimitStepKind.DECREMENT,
}
NEGATED = {
    Compare.AT_LEAST: Compare.FEWER_THAN,
    Compare.FEWER_THAN: Compare.AT_LEAST,
    Compare.AT_MOST: Compare.MORE_THAN,
    Compare.MORE_THAN: Compare.AT_MOST,
    Compare.EQUAL: Compare.NOT_EQUAL,
    Compare.NOT_EQUAL: Compare.EQUAL,
}

# A translated condition: decided (True / False), a condition for the validator, or None
# (this reading cannot express it).
Term = RosterCondition | bool | None


@dataclass(frozen=True, slots=True)
class _Where:
    """The entry a modifier sits on: the datasheet's root, and whether ``parent`` is the unit."""

    root: Node
    node: Node
    parent_is_unit: bool
    on_root: bool = False  # no entry between the datasheet and ``node`` (groups only)
    # the model type (the first entry below the datasheet) ``node`` is inside, and whether
    # ``parent`` from ``node`` is that model; a count inside it is the unit's when the unit
    # has at most one such model (ruling D21)
    model: Node | None = None
    parent_is_model: bool = False


class RestrictionReader:
    """Reads the restrictions of the datasheets of one catalogue being built."""

    def __init__(
        self,
        builder: Builder,
        ctx: Context,
        sheet_names: Mapping[str, str],
        detachment_names: Mapping[str, str],
    ) -> None:
        self.b = builder
        self.ctx = ctx  # detachments known, none chosen
        self.sheet_names = sheet_names  # root entry id -> datasheet name
        self.detachment_names = detachment_names  # detachment entry id -> its name
        self.skipped = 0  # modifiers whose condition cannot be expressed
        self.read_count = 0
        self._carries: dict[int, bool] = {}  # id(element) -> has a message modifier below
        self._pending: list[Element] = []  # conditions of the modifier being read
        self._hiding = False  # reading a "hidden" modifier (ruling D12)
        # a count below the unit (one model's wargear) may be written as the unit's when that
        # is sufficient (an upper bound, ruling D16); never where the condition is negated
        self._per_model = False
        # Hidden categories the data adds to a roster through a datasheet's Warlord entry (a
        # "this unit is the Warlord" flag): category id -> the datasheets carrying it.
        self.flags = _warlord_flags(builder, sheet_names)
        self.sizes = battle_sizes(builder.ws)  # battle size entry id -> its label
        self.detachment_ids = frozenset(detachment_names)
        self._singles: dict[tuple[str, str], bool] = {}
        # reading points steps: a group's members hidden in this catalogue are not counted
        self._visible_only = False
        self._elsewhere: dict[tuple[str, str, str, str], frozenset[str]] = {}

    def carries(self, node: Node) -> bool:
        """Whether a message modifier sits on ``node`` or below it (through links too): the
        walk skips the rest, which is most of the data."""
        for h, doc in node.holders():  # a loop, not any(): no generator per call (issue 17)
            known = self._carries.get(id(h))
            if known is None:
                known = self._carries_elem(h, doc, 0)
            if known:
                return True
        return False

    def _carries_elem(self, elem: Element, doc: Document, depth: int) -> bool:
        known = self._carries.get(id(elem))
        if known is not None:
            return known
        self._carries[id(elem)] = False  # a link cycle reads as "nothing below"
        own, hidden_by = self._marks(elem)
        found = own or not self.detachment_ids.isdisjoint(hidden_by)
        if not found and depth < MAX_LINK_DEPTH:
            for link in elem.iter("entryLink"):
                target = self.b.ws.resolve(link.get("targetId") or "", doc)
                if target is not None and self._carries_elem(target[0], target[1], depth + 1):
                    found = True
                    break
        self._carries[id(elem)] = found
        return found

    def _marks(self, elem: Element) -> tuple[bool, frozenset[str]]:
        """What :meth:`_carries_elem` reads in ``elem`` and below it (links not followed),
        once per import (the readers of every catalogue ask for the same entries): whether
        a message modifier, or a hidden choice or lowered allowance that may count what a
        unit holds (D16), sits there; and the ids counted by the army-wide conditions of its
        "hidden" modifiers (one of them a detachment: a choice hidden in some Detachments,
        ruling D21)."""
        memo = self.b.ws.memo("restriction-marks")
        known: tuple[bool, frozenset[str]] | None = memo.get(id(elem))
        if known is not None:
            return known
        caps = {
            c.get("id") for c in elem.iter("constraint") if c.get("type") == "max" and c.get("id")
        }

        def loadout(m: Element) -> bool:  # a hidden choice or a lowered allowance (D16)
            return _hides(m) or (m.get("field") in caps and _lowers(m))

        own = any(
            _is_message(m) or (loadout(m) and self._on_unit(m)) for m in elem.iter("modifier")
        ) or any(
            self._on_unit(g) and any(loadout(m) for m in g.iter("modifier"))
            for g in elem.iter("modifierGroup")
        )
        hidden_by = frozenset(
            c.get("childId") or ""
            for m in elem.iter("modifier")
            if _hides(m)
            for c in m.iter("condition")
            if (c.get("scope") or "") in ARMY_SCOPES
        )
        known = memo[id(elem)] = (own, hidden_by)
        return known

    def _on_unit(self, holder: Element) -> bool:
        """Whether one of ``holder``'s own conditions may count what a unit holds (not the
        force, the primary catalogue, a roster option or a Crusade-only entry: those the
        importer decides, D1, D15)."""
        ws = self.b.ws
        never = ws.never_selected()
        for box in (holder.find("conditions"), holder.find("conditionGroups")):
            if box is None:
                continue
            for c in box.iter("condition"):
                child = c.get("childId") or ""
                if (c.get("scope") or "") in ("roster", "force", "primary-catalogue"):
                    continue
                if child in ws.force_names or child in ws.options or child in never:
                    continue
                return True
        return False

    def read(self, root: Node) -> tuple[Restriction, ...]:
        if not self.carries(root) and not any(_hides_by_roster(m, g) for m, g in root.modifiers()):
            return ()
        found: list[Restriction] = []
        for where, modifier, groups in self._modifiers(root):
            cap = None if _is_message(modifier) else _lowered_cap(where.node, modifier)
            if cap is not None:
                self._cap(where, modifier, groups, cap, found)
                continue
            hides = not _is_message(modifier)
            severity = (
                RestrictionSeverity.ERROR if hides else MESSAGE_FIELDS[modifier.get("field") or ""]
            )
            self._pending = []
            self._hiding = hides
            self._per_model = True
            try:
                term = _all(
                    [self._holder(g, where) for g in groups] + [self._holder(modifier, where)]
                )
            finally:
                self._per_model = False
            if term is None:
                self.skipped += 1
                continue
            if term is False:
                self.read_count += 1
                continue  # never raised in a matched-play list (Crusade, Boarding Actions...)
            if hides and where.node is not root and where.node.is_group:
                if isinstance(term, RosterCondition):
                    self._hidden_group(where, term, found)
                continue  # always hidden: the builder does not offer it
            wargear = "" if where.node is root or where.node.is_group else where.node.name.strip()
            if hides and (term is True or (only_detachments(term) and not wargear)):
                continue  # decided at import, or a detachment variant (D8)
            # a choice hidden in some Detachments is kept (ruling D21): refused there, and
            # not offered there (the builder decides the Detachment where it offers choices)
            if term is True:
                if not wargear:
                    self.skipped += 1  # always raised for every unit: not a list condition
                    continue
                term = RosterCondition.count(CountOf.WARGEAR, Compare.AT_LEAST, 1, wargear[:200])
            restriction = Restriction(
                when=term,
                severity=severity,
                wargear=wargear[:200],
                unavailable=hides,
                entry=hides and bool(wargear),  # a choice the data hides (D16)
            )
            self.read_count += 1
            census = self.b.ws.census
            if census is not None:
                for c in self._pending:
                    census.deferred(c)
            if restriction not in found and len(found) < MAX_PER_SHEET:
                found.append(restriction)
        return tuple(found)

    def _cap(
        self,
        where: _Where,
        modifier: Element,
        groups: tuple[Element, ...],
        cap: tuple[int, str],
        found: list[Restriction],
    ) -> None:
        """A modifier lowering a wargear entry's or option's ``max`` (ruling D16): to 0, its
        choices are unavailable while the condition holds (as if hidden); to N in the unit
        (a unit-wide allowance), more than N of them while it holds is an error. A lowered
        per-model allowance above 0 is not read (the roster counts the unit's choices)."""
        value, scope = cap
        unit_wide = (
            scope in UNIT_SCOPES
            or scope in where.root.ids
            or (scope == "parent" and where.parent_is_unit)
        )
        if value > 0 and (not unit_wide or where.node.is_group):
            self.skipped += 1  # a per-model allowance, or an option's: not certain
            return
        names = self._choice_names(where.node)
        if not names:
            self.skipped += 1
            return
        self._pending = []
        self._hiding = False
        self._per_model = True
        try:
            term = _all([self._holder(g, where) for g in groups] + [self._holder(modifier, where)])
        finally:
            self._per_model = False
        if term is None:
            self.skipped += 1
            return
        self.read_count += 1
        if not isinstance(term, RosterCondition):
            return  # decided at import: never applies, or the builder's own reading
        rules: list[Restriction] = []
        if value == 0:
            rules = [Restriction(when=term, wargear=n, unavailable=True, entry=True) for n in names]
        else:
            over = RosterCondition.count(CountOf.WARGEAR, Compare.MORE_THAN, value, names[0])
            both = _all([over, term])
            if isinstance(both, RosterCondition):
                rules = [Restriction(when=both, wargear=names[0], entry=True)]
        census = self.b.ws.census
        if census is not None and rules:
            for c in self._pending:
                census.deferred(c)
        for rule in rules:
            if rule not in found and len(found) < MAX_PER_SHEET:
                found.append(rule)

    def _hidden_group(self, where: _Where, term: RosterCondition, found: list[Restriction]) -> None:
        """An option group the data hides while ``term`` holds (ruling D20): each of its
        choices is unavailable then, and the group's requirement (its ``min``, e.g. "a Mark of
        Chaos" where the group is shown) binds while it does not hold. A requirement is read
        only for a group on the datasheet itself (not inside one model type of a unit, whose
        number of carriers the roster does not record)."""
        names = self._choice_names(where.node)
        if not names:
            self.skipped += 1
            return
        rules = [Restriction(when=term, wargear=n, unavailable=True, entry=True) for n in names]
        required = self.b.raised_min(where.node)
        if required > 0 and (where.on_root or self._exactly_one(where)):
            rules.append(
                Restriction(
                    when=_negate(term),
                    severity=RestrictionSeverity.WARNING,
                    wargear=(where.node.name.strip() or "Wargear")[:200],
                    required=required,
                    choices=tuple(names),
                )
            )
        self.read_count += 1
        census = self.b.ws.census
        if census is not None:
            for c in self._pending:
                census.deferred(c)
        for rule in rules:
            if rule not in found and len(found) < MAX_PER_SHEET:
                found.append(rule)

    # -- choices a Detachment unlocks (ruling D20) --------------------------------------

    def unlocked(
        self, root: Node, detachments: Sequence[tuple[str, Context]]
    ) -> tuple[tuple[WargearOption, ...], tuple[Restriction, ...]]:
        """Wargear the data hides on the datasheet unless some Detachments are chosen (an
        Agents of the Imperium detachment's upgrades): offered as an option, unavailable in
        the other Detachments, and required where the data raises its ``min`` there."""
        if not detachments:
            return (), ()
        ids = self.detachment_ids
        options: list[WargearOption] = []
        rules: list[Restriction] = []
        model = root.name.strip()[:200] if root.type == "model" else ""
        for child in self.b.children(root):
            if child.is_group or child.type == "model" or not self.b.hidden(child):
                continue
            if not any(
                (c.get("childId") or "") in ids
                for m, g in child.modifiers()
                if m.get("field") == "hidden" and m.get("value") == "false"
                for h in (*g, m)
                for c in h.iter("condition")
            ):
                continue
            shown = [(name, ctx) for name, ctx in detachments if not self.b.hidden(child, ctx)]
            name = child.name.strip()[:200]
            if not shown or not name or len(shown) == len(detachments):
                continue
            choice = self.b.choice(child)
            most = self.b.constraint(child, "max")
            options.append(
                WargearOption(
                    name=name,
                    model=model,
                    choices=(
                        WargearChoice(
                            name, tuple(w[:200] for w in choice.weapons), choice.points, None
                        ),
                    ),
                    max=max(1, min(most if most is not None and most > 0 else 1, 200)),
                )
            )
            elsewhere = _all(
                [
                    RosterCondition.count(CountOf.DETACHMENT, Compare.FEWER_THAN, 1, d)
                    for d, _ in shown
                ]
            )
            assert isinstance(elsewhere, RosterCondition)
            rules.append(Restriction(when=elsewhere, wargear=name, unavailable=True, entry=True))
            for d, ctx in shown:
                required = self.b.raised_min(child, ctx)
                if required > 0:
                    rules.append(
                        Restriction(
                            when=RosterCondition.count(CountOf.DETACHMENT, Compare.AT_LEAST, 1, d),
                            severity=RestrictionSeverity.WARNING,
                            wargear=name,
                            required=required,
                            choices=(name,),
                        )
                    )
            self.read_count += 1
        return tuple(options), tuple(rules)

    def _choice_names(self, node: Node) -> list[str]:
        """The choice an entry is, or the choices of an option group (one level of groups)."""
        if not node.is_group:
            name = node.name.strip()[:200]
            return [name] if name else []
        names: list[str] = []
        for m in self.b.children(node):
            inner = self.b.children(m) if m.is_group else [m]
            for x in inner:
                if x.is_group or x.type == "model":
                    continue
                name = x.name.strip()[:200]
                if name and name not in names and len(names) < MAX_CONDITION_NAMES:
                    names.append(name)
        return names

    # -- limits that depend on the rest of the roster (ruling D9) -----------------------

    def limit(self, root: Node, name: str) -> tuple[int, tuple[Restriction, ...]] | None:
        """The datasheet's limit of copies when a modifier of it depends on the rest of the
        roster: the most any roster allows, and for each combination of those modifiers that
        allows fewer, a restriction "more than N units of it, and the combination holds".
        Each combination's condition is one that certainly holds when the data's does (a
        flag the roster cannot show is only used where its absence is certain), so a reported
        breach is certain. ``None``: no such limit, or one this reading cannot express."""
        where = _Where(root, root, parent_is_unit=False)
        mods = list(root.modifiers())
        found: tuple[int, tuple[Restriction, ...]] | None = None
        for c in root.constraints():
            if c.get("type") != "max" or c.get("field") != "selections":
                continue
            if (c.get("scope") or "") not in ARMY_SCOPES:
                continue
            cid = c.get("id") or ""
            base = _number(c.get("value"))
            if base is None or not cid:
                continue
            steps: list[tuple[str, float, tuple[Term, Term]]] = []
            self._pending = []
            self._hiding = False
            for m, groups in mods:
                if m.get("field") != cid or m.get("type") not in ("set", "increment", "decrement"):
                    continue
                amount = _number(m.get("value"))
                if amount is None or m.find("repeats") is not None:
                    return None  # a modifier repeated per selection counted: not read
                holders = [*groups, m]
                when = _all([self._sufficient(h, where, True) for h in holders])
                unless = _any([self._sufficient(h, where, False) for h in holders])
                if when is False and unless is True:
                    continue  # never applies in a matched-play list
                steps.append((m.get("type") or "", amount, (when, unless)))
            live = [st for st in steps if st[2] != (True, False)]
            if not live:
                continue  # decided at import (Builder.roster_limit)
            if found is not None or len(live) > MAX_LIMIT_MODIFIERS:
                return None  # several roster-dependent limits, or too many modifiers
            if all(_only_detachments_term(t) for st in live for t in st[2]):
                return None  # what the detachment changes is read per detachment (D8)
            combos = self._combinations(base, steps)
            if combos is None:
                return None
            most = max((v for v, when in combos if when is not False), default=None)
            if most is None:
                return None
            rules: list[Restriction] = []
            for value, when in combos:
                if value >= most or when is False:
                    continue
                over = RosterCondition.count(CountOf.UNITS, Compare.MORE_THAN, value, name)
                term = _all([over, when])
                if isinstance(term, RosterCondition):
                    rule = Restriction(when=term)
                    if rule not in rules:
                        rules.append(rule)
            census = self.b.ws.census
            if census is not None and rules:
                for cond in self._pending:
                    census.deferred(cond)
            found = (most, tuple(rules[:MAX_PER_SHEET]))
        return found

    def _combinations(
        self, base: float, steps: list[tuple[str, float, tuple[Term, Term]]]
    ) -> list[tuple[int, Term]] | None:
        """Each combination of the modifiers that apply, with the limit it gives and a
        condition sufficient for exactly that combination."""
        out: list[tuple[int, Term]] = []
        for mask in range(1 << len(steps)):
            value = base
            parts: list[Term] = []
            for i, (kind, amount, (when, unless)) in enumerate(steps):
                if mask >> i & 1:
                    if kind == "set":
                        parts = []  # what applied before is overridden
                    parts.append(when)
                    value = (
                        amount
                        if kind == "set"
                        else value + (amount if kind == "increment" else -amount)
                    )
                else:
                    parts.append(unless)
            if value < 0:
                return None  # no limit in some roster: the core rule decides
            found = (min(int(value), 1000), _all(parts))
            if found not in out:
                out.append(found)
        return out

    def _sufficient(self, holder: Element, where: _Where, want: bool) -> Term:
        """A condition that certainly holds when ``holder``'s conditions are ``want``:
        ``True`` / ``False`` when decided, ``None`` when none can be written."""
        parts: list[Term] = []
        conds = holder.find("conditions")
        if conds is not None:
            parts.extend(
                self._sufficient_condition(c, where, want) for c in conds.findall("condition")
            )
        groups = holder.find("conditionGroups")
        if groups is not None:
            parts.extend(self._sufficient(g, where, want) for g in groups.findall("conditionGroup"))
        kind = (holder.get("type") or "and") if holder.tag == "conditionGroup" else "and"
        if kind not in ("and", "or"):
            return None  # a "count" group
        # and is true: all parts true; and is false: any part false (or mirrored)
        every = (kind == "and") == want
        if every:
            return _all(parts)
        return _any_known(parts)

    def _sufficient_condition(self, c: Element, where: _Where, want: bool) -> Term:
        flag = self._flag(c, where, want)
        if flag is not None:
            return flag
        term = self._condition(c, where)
        if term is None or want:
            return term
        return (not term) if isinstance(term, bool) else _negate(term)

    def _flag(self, c: Element, where: _Where, want: bool) -> Term:
        """A count of a Warlord flag category in the roster: the flag is there exactly when a
        unit of one of its datasheets is marked as the Warlord (the data adds it through
        that datasheet's own Warlord entry; ruling D29)."""
        carriers = self.flags.get(c.get("childId") or "")
        if not carriers or (c.get("scope") or "") not in ARMY_SCOPES:
            return None
        kind = c.get("type") or ""
        value = _number(c.get("value"))
        present = {"atLeast": value == 1, "greaterThan": value == 0}.get(kind, False)
        absent = {"lessThan": value == 1, "equalTo": value == 0, "atMost": value == 0}.get(
            kind, False
        )
        if not (present or absent):
            return None
        self._pending.append(c)
        if present == want:  # the flag is there: one of its datasheets is the Warlord
            return _any(
                [
                    RosterCondition.count(CountOf.WARLORD_UNITS, Compare.AT_LEAST, 1, n)
                    for n in carriers
                ]
            )
        return _all(
            [
                RosterCondition.count(CountOf.WARLORD_UNITS, Compare.FEWER_THAN, 1, n)
                for n in carriers
            ]
        )

    # -- points that depend on the unit's wargear (ruling D28) -------------------------

    def points_steps(self, root: Node, sheet: Datasheet) -> tuple[PointsStep, ...]:
        """The datasheet's own points modifiers (``increment`` / ``decrement``) whose
        condition or repeat counts the unit's wargear choices, which pricing by size cannot
        decide: "5 more points per weapon past the second" (a Crucible character). Read only
        when certain from what the roster records: every condition is a count in the unit
        (``all`` of them, no ``or``) and at least one counts choices; what is counted is a
        choice of this datasheet only there (not elsewhere in the unit, not some model's
        default); no ``set`` of the points follows (it would replace the sum). Anything else
        leaves the datasheet's points as pricing by size reads them."""
        mods = self.b.cost_modifiers(root)
        if not mods:
            return ()
        where = _Where(root, root, parent_is_unit=False, on_root=True)
        found: list[PointsStep] = []
        pending: list[Element] = []
        for m, groups, ids in mods:
            kind = m.get("type") or ""
            if kind == "set":
                if found and self.b.applies(m, groups, ids, self.ctx) is not False:
                    return ()  # a later "set" would replace the steps' sum
                continue
            if kind not in ("increment", "decrement"):
                continue
            if self.b.applies(m, groups, ids, self.ctx) is False:
                continue
            repeats = m.find("repeats")
            if self.b.applies(m, groups, ids, self.ctx) is True and repeats is None:
                continue  # decided at import: pricing by size applies it
            amount = _number(m.get("value"))
            if amount is None or not 0 <= amount <= 10_000 or amount != int(amount):
                return ()
            self._pending = []
            self._hiding = False
            self._visible_only = True
            try:
                term = _all([self._holder(g, where) for g in groups] + [self._holder(m, where)])
                read = None if repeats is None else self._repeat(repeats, root, where)
            finally:
                self._visible_only = False
            if term is False:
                continue  # never in a matched-play list (Crusade...)
            if term is None:
                return ()  # one modifier not read: none is (a part of the sum would be wrong)
            when = term if isinstance(term, RosterCondition) else None
            per: tuple[str, ...] = ()
            every = 1
            if repeats is not None:
                if read is None:
                    return ()
                per, every = read
            if when is not None and not _unit_only(when):
                return ()
            if not per and not _counts_wargear(when):
                continue  # no wargear counted: pricing by size decides it
            step = PointsStep(
                LimitStepKind.INCREMENT if kind == "increment" else LimitStepKind.DECREMENT,
                int(amount),
                when,
                per,
                every,
            )
            if len(found) >= MAX_POINTS_STEPS:
                return ()
            found.append(step)
            pending.extend(self._pending)
        steps = certain_steps(sheet, tuple(found))
        census = self.b.ws.census
        if census is not None and steps:
            for c in pending:
                census.deferred(c)
        return steps

    def _repeat(
        self, repeats: Element, root: Node, where: _Where
    ) -> tuple[tuple[str, ...], int] | None:
        """One repeat of a points modifier that counts choices in the unit: (their names,
        per how many)."""
        found = repeats.findall("repeat")
        if len(found) != 1:
            return None
        r = found[0]
        scope = r.get("scope") or ""
        child = r.get("childId") or ""
        if (r.get("field") or "") != "selections" or r.get("roundUp") == "true":
            return None
        if not (scope in UNIT_SCOPES or scope in root.ids or scope == "self"):
            return None
        every = _number(r.get("value"))
        times = _number(r.get("repeats"))
        if every is None or every < 1 or every != int(every) or times != 1:
            return None
        names = self._entry_names(child, where)
        if not names or not self._plain_choices(child, where):
            return None
        return tuple(names), int(every)

    def _plain_choices(self, child: str, where: _Where) -> bool:
        """Whether every choice inside the entry or group ``child`` is one selection and no
        more (nothing selected inside it by itself, which a count with child selections
        would add up)."""
        node = self._node_of(child, where.node.doc)
        if node is None:
            return False
        stack = [(node, 0)]
        while stack:
            n, depth = stack.pop()
            for member in self.b.children(n):
                if member.is_group:
                    if depth >= 3:
                        return False
                    stack.append((member, depth + 1))
                elif any(self._selectable(x) for x in self.b.children(member)):
                    return False
        return True

    def _node_of(self, child: str, doc: Document) -> Node | None:
        """The entry or group ``child`` names (through its link)."""
        found = self.b.ws.resolve(child, doc)
        if found is None:
            return None
        elem, at = found
        if elem.tag == "entryLink":
            target = self.b.ws.resolve(elem.get("targetId") or "", at)
            if target is None:
                return None
            return Node(target[0], target[1], elem, at)
        return Node(elem, at)

    def _certainly_hidden(self, node: Node) -> bool:
        """Whether ``node`` is hidden in this catalogue whatever the list holds: a modifier
        hides it for certain and none that may show it again depends on the list."""
        if not self.b.hidden(node):
            return False
        return not any(
            m.get("value") != "true" and self.b.applies(m, groups, node.ids) is None
            for h, _ in node.holders()
            for m, groups in self.b.ws.hide_modifiers(h)
        )

    def _selectable(self, node: Node) -> bool:
        """Whether a matched-play list may hold ``node`` (not Crusade bookkeeping, D5, D15)."""
        return name_key(node.name) not in SKIPPED_NAMES and not (
            node.ids & self.b.ws.never_selected()
        )

    # -- a category's own constraints (ruling M12) --------------------------------------

    def army_limits(self, keywords: frozenset[str]) -> tuple[ArmyLimit, ...]:
        """The "at most N units / points of this category in the army" constraints of the
        categories the catalogue's datasheets carry (``keywords``, as ``name_key``), with the
        modifiers that change them in order (battle size, other units, the primary
        catalogue...). A limit with a modifier this reading cannot express is left out (and
        counted in :attr:`skipped`); one no modifier can ever set (none in any matched-play
        army) is dropped."""
        ws = self.b.ws
        found: list[ArmyLimit] = []
        seen: set[str] = set()
        for doc in ws.chain(self.b.primary):
            for elem in ws.category_entries[doc.id]:
                cid = elem.get("id") or ""
                keyword = self._category(cid)
                if not cid or cid in seen or keyword is None:
                    continue
                seen.add(cid)
                if name_key(keyword) not in keywords:
                    continue
                node = Node(elem, doc)
                for c in node.constraints():
                    limit = self._army_limit(node, c, keyword)
                    if limit is not None and limit not in found:
                        found.append(limit)
                    if len(found) >= MAX_ARMY_LIMITS:
                        return tuple(found)
        return tuple(found)

    def _army_limit(self, node: Node, c: Element, keyword: str) -> ArmyLimit | None:
        ws = self.b.ws
        field_name = c.get("field") or ""
        points = ws.is_pts(field_name)
        minimum = c.get("type") == "min"
        if c.get("type") not in ("max", "min") or (c.get("scope") or "") not in ARMY_SCOPES:
            return None
        if not points and field_name != "selections":
            return None
        base = _number(c.get("value"))
        cid = c.get("id") or ""
        if base is None or not cid:
            return None
        where = _Where(node, node, parent_is_unit=False)
        steps: list[LimitStep] = []
        pending: list[Element] = []
        for m, groups in iter_modifiers(node.elem):
            if m.get("field") != cid:
                continue
            kind = STEP_KINDS.get(m.get("type") or "")
            amount = _number(m.get("value"))
            if kind is None or amount is None or m.find("repeats") is not None:
                self.skipped += 1
                return None
            self._pending = []
            self._hiding = False
            term = _all([self._holder(g, where) for g in groups] + [self._holder(m, where)])
            if term is None:
                self.skipped += 1
                return None
            if term is False:
                continue  # never in a matched-play list of this catalogue
            pending.extend(self._pending)
            when = None if term is True else term
            steps.append(LimitStep(kind, max(-1, min(int(amount), 10_000)), when))
        if base < 0 and not steps:
            return None  # no limit in any army of this catalogue
        if base < 0 and all(s.kind is not LimitStepKind.SET for s in steps):
            return None
        if minimum and base <= 0 and not any(s.amount > 0 for s in steps):
            return None  # nothing is ever required
        census = ws.census
        if census is not None:
            for cond in pending:
                census.deferred(cond)
        self.read_count += 1
        return ArmyLimit(
            keyword=keyword,
            base=max(-1, min(int(base), 10_000)),
            steps=tuple(steps),
            points=points,
            minimum=minimum,
        )

    # -- where the modifiers are ------------------------------------------------------

    def _modifiers(self, root: Node) -> Iterator[tuple[_Where, Element, tuple[Element, ...]]]:
        # a method, not a closure naming itself: such a cycle kept the import's trees alive
        # until the collector's next run
        yield from self._walk(root, root, 0, 0, frozenset({(root.doc.id, root.id)}))

    def _walk(
        self,
        root: Node,
        node: Node,
        depth: int,
        entries: int,
        path: frozenset[tuple[str, str]],
        model: Node | None = None,
    ) -> Iterator[tuple[_Where, Element, tuple[Element, ...]]]:
        where: _Where | None = None  # made for the first modifier yielded (most yield none)
        for m, groups in node.modifiers():
            if (
                _is_message(m)
                or (node is root and _hides_by_roster(m, groups))
                or (node is not root and _hides(m))
                or (node is not root and _lowered_cap(node, m) is not None)
            ):
                if where is None:
                    # "parent" from an entry one below the datasheet is the unit; from a
                    # group, it is the entry holding the group (a model type), whose count
                    # is not the unit's
                    parent_is_model = model is not None and (
                        (entries == 2 and not node.is_group) or (entries == 1 and node.is_group)
                    )
                    where = _Where(
                        root,
                        node,
                        parent_is_unit=entries == 1 and not node.is_group,
                        on_root=entries == 0,
                        model=model,
                        parent_is_model=parent_is_model,
                    )
                yield where, m, groups
        if depth >= MAX_DEPTH:
            return
        for child in self.b.children(node):
            key = (child.doc.id, child.id)
            if key in path or not self.carries(child) or self.b.hidden(child):
                continue
            if name_key(child.name) in SKIPPED_NAMES or (
                child.is_group and name_key(child.name).endswith("enhancements")
            ):
                continue
            below = model
            if entries == 0 and not child.is_group:
                below = child if child.type == "model" else None
            yield from self._walk(
                root,
                child,
                depth + 1,
                entries + (0 if child.is_group else 1),
                path | {key},
                below,
            )

    # -- conditions -------------------------------------------------------------------

    def _holder(self, holder: Element, where: _Where) -> Term:
        parts: list[Term] = []
        conds = holder.find("conditions")
        if conds is not None:
            parts.extend(self._condition(c, where) for c in conds.findall("condition"))
        groups = holder.find("conditionGroups")
        if groups is not None:
            parts.extend(self._holder(g, where) for g in groups.findall("conditionGroup"))
        if holder.tag != "conditionGroup":
            return _all(parts)
        kind = holder.get("type") or "and"
        if kind == "or":
            return _any(parts)
        return _all(parts) if kind == "and" else None  # e.g. "count": not expressed

    def _condition(self, c: Element, where: _Where) -> Term:
        ws = self.b.ws
        decided = ws.condition(c, self.ctx, where.root.ids)
        if decided is not None:
            return decided
        kind = c.get("type") or ""
        scope = c.get("scope") or ""
        child = c.get("childId") or ""
        if kind in ("instanceOf", "notInstanceOf"):
            keyword = self._category(child)
            if keyword is None or scope not in KEYWORD_SCOPES:
                return None
            has = kind == "instanceOf"
            return self._deferred(
                c,
                RosterCondition.count(
                    CountOf.UNIT_KEYWORD,
                    Compare.AT_LEAST if has else Compare.FEWER_THAN,
                    1,
                    keyword,
                ),
            )
        compare = COMPARES.get(kind)
        if compare is None or c.get("field") != "selections":
            return None
        try:
            value = int(float(c.get("value") or ""))
        except ValueError:
            return None
        if not 0 <= value <= 10_000:
            return None
        if scope in ARMY_SCOPES:
            if self._hiding and child in where.root.ids:
                return None  # "hidden once the army has one": the core limits decide (D9)
            return self._deferred(c, self._army_count(child, compare, value, where))
        in_unit = (
            scope in UNIT_SCOPES
            or scope in where.root.ids
            or (scope == "parent" and where.parent_is_unit)
            or (scope == "self" and where.node is where.root)
        )
        one_model = upper = False
        if not in_unit:
            # A count inside one model (or one entry) of the unit is at most the unit's: "fewer
            # than N in the model" certainly holds when the unit has fewer than N (D16).
            upper = compare in (Compare.FEWER_THAN, Compare.AT_MOST) or (
                compare is Compare.EQUAL and value == 0
            )
            # ... and it is the unit's when the unit has at most one model of that type and
            # nothing else in the unit offers what is counted (ruling D21)
            one_model = (
                where.model is not None
                and child != "model"
                and (
                    (scope == "parent" and where.parent_is_model)
                    or scope in where.model.ids
                    or scope in ("model", "model-or-unit")
                    or (scope == "self" and where.node is where.model)
                )
                and self._single(where.model)
            )
            if not one_model and not (
                self._per_model and upper and scope in MODEL_SCOPES and child != "model"
            ):
                return None
        if child == "model":
            return self._deferred(c, RosterCondition.count(CountOf.MODELS, compare, value))
        names = self._entry_names(child, where)
        if not names:
            return None
        if (
            one_model
            and where.model is not None
            and not (self._per_model and upper and scope in MODEL_SCOPES)
            and any(name_key(n) in self._names_elsewhere(where.root, where.model) for n in names)
        ):
            return None  # the unit's count may include another model's
        return self._deferred(
            c,
            RosterCondition(
                ConditionOp.COUNT,
                of=CountOf.WARGEAR,
                name=names[0] if len(names) == 1 else self._entry_name(child, where) or names[0],
                compare=compare,
                value=value,
                names=tuple(names) if len(names) > 1 else (),
            ),
        )

    def _exactly_one(self, where: _Where) -> bool:
        """Whether ``where`` is a group of a model type every unit holds exactly once (a
        Sergeant): its requirement binds that one model, which the unit's count shows (a
        shortfall in the unit is one in the model; ruling D21)."""
        model = where.model
        return (
            model is not None
            and where.parent_is_model
            and where.node.is_group
            and (self.b.constraint(model, "min") or 0) >= 1
            and self._single(model)
        )

    def _single(self, model: Node) -> bool:
        """Whether a unit holds at most one model of type ``model`` in any loadout."""
        key = (model.doc.id, model.id)
        found = self._singles.get(key)
        if found is None:
            found = self.b.option_max(model) == 1
            self._singles[key] = found
        return found

    def _names_elsewhere(self, root: Node, model: Node) -> frozenset[str]:
        """The names (``name_key``) of the entries of the datasheet ``root`` outside the model
        type ``model``: what a count inside that model cannot tell apart in the unit."""
        key = (root.doc.id, root.id, model.doc.id, model.id)
        found = self._elsewhere.get(key)
        if found is not None:
            return found
        names: set[str] = set()
        skip = (model.doc.id, model.id)
        stack = [(root, 0)]
        seen: set[tuple[str, str]] = set()
        while stack:
            node, depth = stack.pop()
            for child in self.b.children(node):
                k = (child.doc.id, child.id)
                if k == skip or k in seen or depth >= MAX_DEPTH:
                    continue
                seen.add(k)
                if not child.is_group:
                    names.add(name_key(child.name))
                stack.append((child, depth + 1))
        found = frozenset(names)
        self._elsewhere[key] = found
        return found

    def _deferred(self, c: Element, term: Term) -> Term:
        """``term``; once its restriction is kept, the census is told that ``c`` is decided
        when validating."""
        if isinstance(term, RosterCondition):
            self._pending.append(c)
        return term

    def _army_count(self, child: str, compare: Compare, value: int, where: _Where) -> Term:
        if child in self.sizes:
            return RosterCondition.count(CountOf.BATTLE_SIZE, compare, value, self.sizes[child])
        if child in self.sheet_names:
            return RosterCondition.count(CountOf.UNITS, compare, value, self.sheet_names[child])
        if child in self.detachment_names:
            return RosterCondition.count(
                CountOf.DETACHMENT, compare, value, self.detachment_names[child]
            )
        if child in self.flags:
            # a Warlord flag: how many units of its datasheet are the Warlord (ruling D29)
            carriers = self.flags[child]
            if len(carriers) != 1:
                return None
            return RosterCondition.count(CountOf.WARLORD_UNITS, compare, value, carriers[0])
        keyword = self._category(child)
        if keyword is not None:
            return RosterCondition.count(CountOf.KEYWORD, compare, value, keyword)
        if name_key(self._entry_name(child, where) or "") == "warlord":
            return RosterCondition.count(CountOf.WARLORD, compare, value)
        return None

    def _category(self, child: str) -> str | None:
        name = self.b.ws.category_names.get(child)
        if not name:
            return None
        if name.startswith(FACTION_PREFIX):
            name = name[len(FACTION_PREFIX) :]
        return name.strip()[:200] or None

    def _entry_name(self, child: str, where: _Where) -> str | None:
        found = self.b.ws.resolve(child, where.node.doc)
        if found is None:
            return None
        return (found[0].get("name") or "").strip()[:200] or None

    def _entry_names(self, child: str, where: _Where) -> list[str]:
        """The choices counted for ``child`` in the unit: the entry's own name, or for a group
        the names of the entries inside it. Empty when it counts models of one type, which the
        roster does not record (only the unit's size)."""
        found = self.b.ws.resolve(child, where.node.doc)
        if found is None or child in where.root.ids:
            return []
        elem, doc = found
        if elem.tag == "entryLink":
            target = self.b.ws.resolve(elem.get("targetId") or "", doc)
            if target is None:
                return []
            elem, doc = target
        if elem.tag == "selectionEntry":
            if elem.get("type") == "model":
                return []  # models of one type: the roster does not record them (ruling D12)
            name = (elem.get("name") or "").strip()[:200]
            return [name] if name else []
        if elem.tag != "selectionEntryGroup":
            return []
        names: list[str] = []
        stack = [(Node(elem, doc), 0)]
        while stack and len(names) < MAX_CONDITION_NAMES:
            node, depth = stack.pop()
            for member in self.b.children(node):
                if member.is_group and depth < 3:
                    stack.append((member, depth + 1))
                elif not member.is_group:
                    if member.type == "model":
                        return []
                    if self._visible_only and self._certainly_hidden(member):
                        continue  # never selected in this catalogue: counts 0 (D28)
                    name = member.name.strip()[:200]
                    if name and name not in names and len(names) < MAX_CONDITION_NAMES:
                        names.append(name)
        return names


def battle_sizes(ws: Workspace) -> dict[str, str]:
    """The game system's battle size entries: id -> the roster's label ("Strike Force")."""
    if ws.battle_size_labels is not None:  # read once per import
        return dict(ws.battle_size_labels)
    out: dict[str, str] = {}
    for d in ws.docs.values():
        for group in d.root.iter("selectionEntryGroup"):
            if name_key(group.get("name") or "") != "battle size":
                continue
            for e in group.iter("selectionEntry"):
                name = name_key(e.get("name") or "")
                label = next((v for k, v in BATTLE_SIZE_WORDS.items() if k in name), None)
                if label is not None and e.get("id"):
                    out[e.get("id") or ""] = label
    ws.battle_size_labels = dict(out)
    return out


def _number(text: str | None) -> float | None:
    try:
        return float(text or "")
    except ValueError:
        return None


def _negate(c: RosterCondition) -> RosterCondition:
    if c.op is ConditionOp.COUNT:
        return replace(c, compare=NEGATED[c.compare])
    op = ConditionOp.ANY if c.op is ConditionOp.ALL else ConditionOp.ALL
    return RosterCondition(op, args=tuple(_negate(a) for a in c.args))


def _only_detachments_term(term: Term) -> bool:
    return isinstance(term, bool) or (term is not None and only_detachments(term))


def _any_known(parts: Sequence[Term]) -> Term:
    """Any of ``parts``, leaving out those that cannot be written (a sufficient condition
    for an "or" needs only one of its members)."""
    known = [p for p in parts if p is not None]
    found = _any(known)
    if found is False and len(known) < len(parts):
        return None  # none certain, but one that cannot be written may hold
    return found


def _warlord_flags(builder: Builder, sheet_names: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Hidden categories linked from a "Warlord" entry below a datasheet: id -> datasheets."""
    ws = builder.ws
    hidden = ws.hidden_categories
    out: dict[str, list[str]] = {}
    if not hidden:
        return {}
    # an entry's flags, in order, read once per import (every catalogue's reader asks)
    flags_of: dict[int, tuple[str, ...]] = ws.memo("warlord-flags")
    for sheet_id, sheet in sheet_names.items():
        for d in ws.docs.values():
            elem = d.ids.get(sheet_id)
            if elem is None or elem.tag not in ("selectionEntry", "entryLink"):
                continue
            flags = flags_of.get(id(elem))
            if flags is None:
                flags = flags_of[id(elem)] = _flags_below(elem, hidden)
            for target in flags:
                if sheet not in out.setdefault(target, []):
                    out[target].append(sheet)
    return {k: tuple(v) for k, v in out.items()}


def _flags_below(elem: Element, hidden: set[str]) -> tuple[str, ...]:
    """The hidden categories the "Warlord" entries just below ``elem`` link, in order."""
    found: list[str] = []
    for box in ("entryLinks", "selectionEntries"):
        inner = elem.find(box)
        for child in inner if inner is not None else ():
            if name_key(child.get("name") or "") != "warlord":
                continue
            for link in child.iter("categoryLink"):
                target = link.get("targetId") or ""
                if target in hidden:
                    found.append(target)
    return tuple(found)


def _is_message(m: Element) -> bool:
    return m.get("type") == "add" and (m.get("field") or "") in MESSAGE_FIELDS


def _hides(m: Element) -> bool:
    """A "hidden" modifier (on a wargear entry: a loadout the data forbids, ruling D16)."""
    return m.get("field") == "hidden" and m.get("type") == "set" and m.get("value") == "true"


def _lowers(m: Element) -> bool:
    return m.get("type") in ("set", "decrement") and m.find("repeats") is None


def _lowered_cap(node: Node, m: Element) -> tuple[int, str] | None:
    """When ``m`` lowers a ``max`` selections constraint of ``node`` (``set`` to less, or
    ``decrement``): the new limit and the constraint's scope."""
    kind = m.get("type")
    if kind not in ("set", "decrement") or m.find("repeats") is not None:
        return None
    field_id = m.get("field") or ""
    for c in node.constraints():
        if c.get("id") != field_id or c.get("type") != "max" or c.get("field") != "selections":
            continue
        base, amount = _number(c.get("value")), _number(m.get("value"))
        if base is None or amount is None or base < 0:
            return None
        value = amount if kind == "set" else base - amount
        if value >= base or value < 0:
            return None
        return int(value), c.get("scope") or ""
    return None


def _hides_by_roster(m: Element, groups: tuple[Element, ...] = ()) -> bool:
    """A "hidden" modifier with a condition on the rest of the roster (ruling D12)."""
    if m.get("field") != "hidden" or m.get("type") != "set" or m.get("value") != "true":
        return False
    return any(
        (c.get("scope") or "") in ARMY_SCOPES for h in (*groups, m) for c in h.iter("condition")
    )


def only_detachments(term: RosterCondition | bool) -> bool:
    """Whether ``term`` reads nothing but which Detachment the roster has chosen."""
    if isinstance(term, bool):
        return False
    if term.op is ConditionOp.COUNT:
        return term.of is CountOf.DETACHMENT
    return all(only_detachments(a) for a in term.args)


def _all(parts: Sequence[Term]) -> Term:
    if any(p is False for p in parts):
        return False
    if any(p is None for p in parts):
        return None
    rules = [p for p in parts if isinstance(p, RosterCondition)]
    if not rules:
        return True
    unique = list(dict.fromkeys(rules))
    return unique[0] if len(unique) == 1 else RosterCondition(ConditionOp.ALL, args=tuple(unique))


def _any(parts: Sequence[Term]) -> Term:
    if any(p is True for p in parts):
        return True
    rules = [p for p in parts if isinstance(p, RosterCondition)]
    if any(p is None for p in parts):
        return None
    if not rules:
        return False
    unique = list(dict.fromkeys(rules))
    return unique[0] if len(unique) == 1 else RosterCondition(ConditionOp.ANY, args=tuple(unique))


def _unit_only(term: RosterCondition) -> bool:
    """Whether ``term`` is an ``all`` of counts in the unit (models, choices): what a points
    step reads (ruling D28)."""
    if term.op is ConditionOp.COUNT:
        return term.of in (CountOf.MODELS, CountOf.WARGEAR)
    return term.op is ConditionOp.ALL and all(_unit_only(a) for a in term.args)


def _counts_wargear(term: RosterCondition | None) -> bool:
    if term is None:
        return False
    if term.op is ConditionOp.COUNT:
        return term.of is CountOf.WARGEAR
    return any(_counts_wargear(a) for a in term.args)


def _wargear_names(term: RosterCondition | None) -> set[str]:
    if term is None:
        return set()
    if term.op is ConditionOp.COUNT:
        if term.of is not CountOf.WARGEAR:
            return set()
        return set(term.names) if term.names else {term.name}
    return {n for a in term.args for n in _wargear_names(a)}


def certain_steps(sheet: Datasheet, steps: tuple[PointsStep, ...]) -> tuple[PointsStep, ...]:
    """``steps`` when what each counts is certain from the roster, which records choices by
    name (ruling D28): every name counted is a choice of the datasheet, every option offering
    one of them offers only names counted together (a choice of the same name outside the
    counted group would be counted with it), and none is a model type or some model's or
    option's default (the roster does not record defaults: a count would read 0). None
    otherwise."""
    if not steps:
        return ()
    offered = {name_key(c.name) for o in sheet.wargear_options for c in o.choices}
    defaults = {name_key(w) for m in sheet.models for w in m.default_wargear} | {
        name_key(o.default) for o in sheet.wargear_options if o.default
    }
    defaults |= {name_key(m.name) for m in sheet.models}
    for step in steps:
        for group in ([step.per] if step.per else []) + _step_groups(step.when):
            names = {name_key(n) for n in group}
            if not names or not names <= offered or names & defaults:
                return ()
            for o in sheet.wargear_options:
                keys = {name_key(c.name) for c in o.choices}
                if keys & names and not keys <= names:
                    return ()
    return steps


def _step_groups(when: RosterCondition | None) -> list[tuple[str, ...]]:
    """The choices each wargear count of ``when`` adds up together."""
    if when is None:
        return []
    if when.op is ConditionOp.COUNT:
        if when.of is not CountOf.WARGEAR:
            return []
        return [when.names or (when.name,)]
    return [g for a in when.args for g in _step_groups(a)]
