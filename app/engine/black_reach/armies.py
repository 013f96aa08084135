"""Army building by points and its validator (note §3.1 item 2, §2.2, §2.5-§2.8; seed
[L2265-L2466], [L2691-L2709], [L3401-L3403]).

A :class:`Catalogue` holds counters, tiles and options (data; our samples in
``data/black_reach/forces.json``). An :class:`Army` is a list of fielded tiles, each with what
fills its slots: an option or a support tile (which has slots of its own). :func:`validate_army`
reports **every** problem at once, each a :class:`Violation` with a stable code, a message, a
fix hint and where it is (``tiles[0].slots[1]``). :func:`order_tokens` counts the Order tokens
an army takes, :func:`groups` lists its combat groups for the Breaking Points.
Readings: docs/rulings/black-reach.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from app.engine.black_reach.board import UnitClass
from app.engine.black_reach.cards import ActionCard
from app.engine.black_reach.forces import (
    Counter,
    DamageSet,
    Faction,
    Group,
    OptionType,
    PerilsMarker,
    PowerEffect,
    PsykerKind,
    RecruitmentOption,
    Tile,
    TileKind,
)
from app.engine.black_reach.gear import Gear
from app.engine.black_reach.gear import order_tokens as gear_order_tokens
from app.engine.black_reach.templates import TEMPLATE_ABILITIES, Template, template_name

__all__ = [
    "CHECKED_AT_USE",
    "MAX_BLUFF_TOKENS",
    "MAX_ORDER_TOKENS",
    "Army",
    "Catalogue",
    "Fielded",
    "Filled",
    "Tokens",
    "Violation",
    "army_cost",
    "groups",
    "option_holders",
    "order_tokens",
    "serves",
    "unit_gear",
    "validate_army",
    "walk",
]

MAX_ORDER_TOKENS = 10  # all tokens, Special and Bluff included (note §8 item 36) [L2700-L2701]
MAX_BLUFF_TOKENS = 2
MAX_DEPTH = 4  # support tiles on support tiles: a bound, not a rule
# violations the match also refuses where the thing is used (no_template: template_fire and
# Da Krunch; no_perils_pool: manifest): a log made before the check still replays (rulings 86)
CHECKED_AT_USE = frozenset({"no_template", "no_perils_pool"})


@dataclass(frozen=True)
class Catalogue:
    counters: Mapping[str, Counter]
    tiles: Mapping[str, Tile]
    options: Mapping[str, RecruitmentOption]
    sample: bool = False
    damage_sets: Mapping[str, DamageSet] = field(default_factory=dict)
    templates: Mapping[str, Template] = field(default_factory=dict)
    perils: tuple[PerilsMarker, ...] = ()  # the Librarian's face-down Perils pool
    cards: tuple[ActionCard, ...] = ()  # the factions' Action cards [L2068-L2072]


@dataclass(frozen=True)
class Filled:
    """What fills one slot of a fielded tile: an option, or a support tile (``fielded``)."""

    slot: int
    option: str | None = None
    fielded: Fielded | None = None


@dataclass(frozen=True)
class Fielded:
    tile: str
    slots: tuple[Filled, ...] = ()


@dataclass(frozen=True)
class Army:
    faction: Faction
    tiles: tuple[Fielded, ...]


@dataclass(frozen=True)
class Violation:
    code: str
    message: str
    hint: str
    where: str


@dataclass(frozen=True)
class Tokens:
    numbered: int
    special: int
    bluff: int

    @property
    def total(self) -> int:
        return self.numbered + self.special + self.bluff


def walk(army: Army) -> Iterator[tuple[str, Fielded, Fielded | None]]:
    """Every fielded tile with its path and the tile it is attached to (None at the top)."""

    def rec(
        f: Fielded, where: str, host: Fielded | None
    ) -> Iterator[tuple[str, Fielded, Fielded | None]]:
        yield where, f, host
        for j, filled in enumerate(f.slots):
            if filled.fielded is not None:
                yield from rec(filled.fielded, f"{where}.slots[{j}]", f)

    for i, fielded in enumerate(army.tiles):
        yield from rec(fielded, f"tiles[{i}]", None)


def _options(army: Army, catalogue: Catalogue) -> Iterator[tuple[str, RecruitmentOption, Fielded]]:
    for where, fielded, _ in walk(army):
        for j, filled in enumerate(fielded.slots):
            option = catalogue.options.get(filled.option or "")
            if option is not None:
                yield f"{where}.slots[{j}]", option, fielded


def army_cost(army: Army, catalogue: Catalogue) -> int:
    """Army points of every known tile and option [L2311-L2316], [L3401-L3403]."""
    total = 0
    for _, fielded, _ in walk(army):
        tile = catalogue.tiles.get(fielded.tile)
        total += tile.cost if tile else 0
    return total + sum(o.cost for _, o, _ in _options(army, catalogue))


def option_holders(
    catalogue: Catalogue, groups: Mapping[str, Group], side: str, uid: str
) -> list[Group]:
    """The groups whose options ``uid`` may use: its own, and its side's command tiles
    [L2473-L2484], [L2395-L2404] (as the grenades, rulings 101)."""
    own = [g for g in groups.values() if uid in g.units]
    command = [
        g
        for g in groups.values()
        if g.side == side
        and g not in own
        and (tile := catalogue.tiles.get(g.tile)) is not None
        and tile.kind is TileKind.COMMAND
    ]
    return own + command


def serves(catalogue: Catalogue, group: Group, option_id: str, uid: str, counter: Counter) -> bool:
    """Whether the option in ``group``'s slot serves the unit: a Personalisation its tile's
    Character only [L2617-L2619]; an Equipment option a unit of a class it allows."""
    option = catalogue.options.get(option_id)
    e = option.equipment if option is not None else None
    if option is None or e is None:
        return False
    if option.type is OptionType.PERSONALISATION:
        return counter.character and uid in group.units
    return not e.restriction or counter.unit_class in e.restriction


def unit_gear(
    catalogue: Catalogue, groups: Mapping[str, Group], side: str, uid: str, counter: Counter
) -> Gear | None:
    """The permanent gifts of the options serving the unit (``None``: none; rulings 126); an
    aura (Waaagh! Banner) is counted at each roll, where the units stand
    (:func:`.battle.equipment.banner_bonus`)."""
    gear = Gear()
    for g in option_holders(catalogue, groups, side, uid):
        for option_id in g.options:
            option = catalogue.options.get(option_id)
            e = option.equipment if option is not None else None
            if e is None or not e.permanent or e.aura is not None:
                continue
            if not serves(catalogue, g, option_id, uid, counter):
                continue
            gear = gear.add(option_id, e)
    return gear if gear.options else None


def _broken(where: str, broken: frozenset[str]) -> bool:
    """Whether the tile at ``where`` is broken, or attached under a broken tile."""
    return any(where == b or where.startswith(b + ".") for b in broken)


def order_tokens(army: Army, catalogue: Catalogue, broken: frozenset[str] = frozenset()) -> Tokens:
    """The Order tokens the army takes at the start of an Order phase [L153-L160]: the stars of
    its tiles, the Boss options; the Ordre / Ordre Personnel its units show on their first
    face, an Ordre Personnel an option grants them included (Machine Spirit: the count of
    :func:`.gear.order_tokens`, which the match reads too; rulings 146, 151); Special and
    Bluff tokens from the ordnances. The units are those its groups field (a counter an option
    replaces gives nothing). A broken tile (its path in ``broken``) gives nothing, nor do its
    options [L639-L647]."""
    numbered = special = bluff = 0
    for where, fielded, _ in walk(army):
        if _broken(where, broken):
            continue
        tile = catalogue.tiles.get(fielded.tile)
        if tile is None:
            continue
        numbered += tile.order_stars
        for filled in fielded.slots:
            option = catalogue.options.get(filled.option or "")
            if option is None:
                continue
            if option.equipment is not None:
                numbered += option.equipment.order_tokens
            if option.ordnance is not None:
                numbered += option.ordnance.order_tokens
                special += option.ordnance.special_tokens
                bluff += option.ordnance.bluff_tokens
    fielded_groups = {g.id: g for g in groups(army, catalogue, "")}
    for group in fielded_groups.values():
        if _broken(group.id.removeprefix(":"), broken):
            continue
        for uid in group.units:
            counter = catalogue.counters.get(uid.rsplit(":", 1)[-1])
            if counter is not None:
                gear = unit_gear(catalogue, fielded_groups, "", uid, counter)
                numbered += gear_order_tokens(counter, gear)
    return Tokens(numbered, special, bluff)


def groups(army: Army, catalogue: Catalogue, side: str) -> tuple[Group, ...]:
    """The army's combat groups, one per fielded tile, each counter a uid ``<path>/<n>``: the
    tile's counters, less those an option replaces, plus a support option's units (they count
    towards the tile they are attached to; rulings) [L2318-L2325], [L2448-L2466]."""
    out: list[Group] = []
    for where, fielded, _ in walk(army):
        tile = catalogue.tiles.get(fielded.tile)
        if tile is None:
            continue
        ids = [(cid, tile.damage_set) for cid in tile.counters]
        for filled in fielded.slots:
            option = catalogue.options.get(filled.option or "")
            if option is None:
                continue
            for gone in option.replaces:
                for i, (cid, _) in enumerate(ids):
                    if cid == gone:
                        del ids[i]
                        break
            ids.extend((cid, option.damage_set) for cid in option.counters)
        units = tuple(f"{side}:{where}/{n}:{cid}" for n, (cid, _) in enumerate(ids))
        # a heavy vehicle's Damage set is the colour on its tile or option [L666-L668]
        sets = {uid: ds for uid, (_, ds) in zip(units, ids, strict=True) if ds is not None}
        out.append(
            Group(
                f"{side}:{where}",
                tile.id,
                side,
                units,
                tile.breaking_point,
                tile.victory_points,
                damage_sets=sets,
                options=tuple(f.option for f in fielded.slots if f.option is not None),
            )
        )
    return tuple(out)


@dataclass
class _Report:
    items: list[Violation] = field(default_factory=list)

    def add(self, code: str, where: str, message: str, hint: str) -> None:
        self.items.append(Violation(code, message, hint, where))


def _heavy(catalogue: Catalogue, counters: tuple[str, ...]) -> bool:
    return any(
        c in catalogue.counters and catalogue.counters[c].unit_class is UnitClass.HEAVY_VEHICLE
        for c in counters
    )


def _check_damage_sets(report: _Report, army: Army, catalogue: Catalogue) -> None:
    """A fielded heavy vehicle needs the Damage set its tile or option names [L666-L668]: the
    match rolls its location on it."""
    for where, fielded, _ in walk(army):
        tile = catalogue.tiles.get(fielded.tile)
        if tile is not None and tile.damage_set is None and _heavy(catalogue, tile.counters):
            report.add(
                "no_damage_set",
                f"{where}.tile",
                f"{tile.name} fields a heavy vehicle but names no Damage set.",
                "Give the tile a damage_set defined in the forces file.",
            )
    for where, option, _ in _options(army, catalogue):
        if option.damage_set is None and _heavy(catalogue, option.counters):
            report.add(
                "no_damage_set",
                f"{where}.option",
                f"{option.name} adds a heavy vehicle but names no Damage set.",
                "Give the option a damage_set defined in the forces file.",
            )


def _check_templates(report: _Report, army: Army, catalogue: Catalogue) -> None:
    """A fielded counter with Tir Direct / Tir Indirect, or a fielded template power (Da
    Krunch), needs the template it names in the forces file (rulings 82, 85)."""
    for group in groups(army, catalogue, ""):
        where = group.id.removeprefix(":")
        for uid in group.units:
            counter = catalogue.counters.get(uid.rsplit(":", 1)[-1])
            if counter is None:
                continue
            names = {
                template_name(ref.param)
                for face in counter.faces
                for ref in face.abilities
                if ref.ability in TEMPLATE_ABILITIES
            }
            for name in sorted(n for n in names if n not in catalogue.templates):
                report.add(
                    "no_template",
                    f"{where}.tile",
                    f"{counter.name} fires a template ({name or 'none named'}) the forces "
                    "file does not define.",
                    "Add the template to the forces file's templates, or name one it has.",
                )
    for where, option, _ in _options(army, catalogue):
        power = option.power
        if power is None or (power.template is None and power.effect is not PowerEffect.DA_KRUNCH):
            continue
        if (power.template or "") not in catalogue.templates:
            report.add(
                "no_template",
                f"{where}.option",
                f"{option.name} places a template ({power.template or 'none named'}) the "
                "forces file does not define.",
                "Add the template to the forces file's templates, or name one it has.",
            )


def _check_perils(report: _Report, army: Army, catalogue: Catalogue) -> None:
    """A Librarian's power draws from the Perils of the Warp pool of the data:
    an army fielding one the match plays needs markers in it [L2808-L2851]."""
    if catalogue.perils:
        return
    for where, option, _ in _options(army, catalogue):
        power = option.power
        if power is not None and power.psyker is PsykerKind.LIBRARIAN and power.effect:
            report.add(
                "no_perils_pool",
                f"{where}.option",
                f"{option.name} is a Librarian's power but the forces file has no Perils "
                "of the Warp markers to draw.",
                "Add markers to the forces file's perils.",
            )


def validate_army(
    army: Army, catalogue: Catalogue, points: int | None = None
) -> tuple[Violation, ...]:
    """Every problem of ``army`` (empty when it is legal), in reading order."""
    report = _Report()
    if not army.tiles:
        report.add("empty_army", "tiles", "The army fields no tile.", "Add a recruitment tile.")
    for where, fielded, host in walk(army):
        _check_tile(report, where, fielded, host, army, catalogue)
    _check_damage_sets(report, army, catalogue)
    _check_templates(report, army, catalogue)
    _check_perils(report, army, catalogue)
    cost = army_cost(army, catalogue)
    if points is not None and cost > points:
        report.add(
            "over_points",
            "points",
            f"The army costs {cost} points, {cost - points} over the {points} allowed.",
            "Remove tiles or options.",
        )
    tokens = order_tokens(army, catalogue)
    if tokens.numbered + tokens.special == 0 and army.tiles:
        report.add(
            "no_order_token",
            "tiles",
            "The army takes no numbered or Special Order token: it would lose at once "
            "(sudden death).",
            "Field a tile or a unit with Order stars.",
        )
    if tokens.total > MAX_ORDER_TOKENS:
        report.add(
            "too_many_tokens",
            "tiles",
            f"The army takes {tokens.total} Order tokens; at most {MAX_ORDER_TOKENS}.",
            "Drop a Boss option, a Bluff or a tile with stars.",
        )
    if tokens.bluff > MAX_BLUFF_TOKENS:
        report.add(
            "too_many_bluffs",
            "tiles",
            f"The army takes {tokens.bluff} Bluff tokens; at most {MAX_BLUFF_TOKENS}.",
            "Drop a Bluff option.",
        )
    return tuple(report.items)


def _check_tile(
    report: _Report,
    where: str,
    fielded: Fielded,
    host: Fielded | None,
    army: Army,
    catalogue: Catalogue,
) -> None:
    if where.count(".slots[") > MAX_DEPTH:
        report.add("too_deep", where, "Support tiles nest too deep.", "Attach it higher up.")
        return
    tile = catalogue.tiles.get(fielded.tile)
    if tile is None:
        report.add(
            "unknown_tile",
            f"{where}.tile",
            f"No tile {fielded.tile!r} in the catalogue.",
            "Pick a tile of the catalogue.",
        )
        return
    if tile.faction is not army.faction:
        report.add(
            "wrong_faction",
            f"{where}.tile",
            f"{tile.name} is a {tile.faction.value} tile in a {army.faction.value} army.",
            "Pick a tile of your faction.",
        )
    if host is None and tile.kind is TileKind.SUPPORT:
        report.add(
            "unattached_support",
            f"{where}.tile",
            f"{tile.name} is a support tile: it cannot be fielded on its own.",
            "Attach it to a slot of a tile with the same colour bands.",
        )
    if host is not None and tile.kind is not TileKind.SUPPORT:
        report.add(
            "not_a_support_tile",
            f"{where}.tile",
            f"{tile.name} is not a support tile: it cannot fill a slot.",
            "Field it on its own.",
        )
    used: set[int] = set()
    characters = [
        c for c in (catalogue.counters.get(cid) for cid in tile.counters) if c and c.character
    ]
    for j, filled in enumerate(fielded.slots):
        at = f"{where}.slots[{j}]"
        if not 0 <= filled.slot < len(tile.slots):
            report.add(
                "no_such_slot",
                at,
                f"{tile.name} has {len(tile.slots)} slot(s); there is no slot {filled.slot}.",
                f"Use a slot from 0 to {max(0, len(tile.slots) - 1)}.",
            )
            continue
        if filled.slot in used:
            report.add(
                "slot_taken",
                at,
                f"Slot {filled.slot} of {tile.name} is filled twice.",
                "Put one option or support tile per slot.",
            )
        used.add(filled.slot)
        bands = tile.slots[filled.slot].bands
        if filled.fielded is not None:
            support = catalogue.tiles.get(filled.fielded.tile)
            if support is not None and support.kind is TileKind.SUPPORT and support.bands != bands:
                report.add(
                    "bands_mismatch",
                    at,
                    f"{support.name} does not show the colour bands of slot {filled.slot}.",
                    "A support tile needs identical colour bands.",
                )
            continue
        option = catalogue.options.get(filled.option or "")
        if option is None:
            report.add(
                "unknown_option",
                at,
                f"No option {filled.option!r} in the catalogue.",
                "Pick an option of the catalogue.",
            )
            continue
        if option.faction is not army.faction:
            report.add(
                "wrong_faction",
                at,
                f"{option.name} is a {option.faction.value} option in a {army.faction.value} army.",
                "Pick an option of your faction.",
            )
        if not option.bands & bands:
            report.add(
                "bands_mismatch",
                at,
                f"{option.name} shares no colour band with slot {filled.slot} of {tile.name}.",
                "Put it in a slot framed by one of its bands.",
            )
        if option.type is OptionType.PERSONALISATION and not characters:
            report.add(
                "needs_character",
                at,
                f"{option.name} is a Personalisation option and {tile.name} has no Character.",
                "Put it on a tile with a Character.",
            )
        if option.type is OptionType.PSYCHIC_POWER and option.power is not None:
            kinds = {c.psyker for c in characters if c.psyker}
            if not kinds:
                report.add(
                    "needs_psyker",
                    at,
                    f"{option.name} is a psychic power and {tile.name} has no psyker.",
                    "Put it on a psyker's tile.",
                )
            elif option.power.psyker not in kinds:
                report.add(
                    "wrong_discipline",
                    at,
                    f"{option.name} is a {option.power.psyker.value} power.",
                    "Give it to a psyker of its discipline.",
                )
        for gone in option.replaces:
            if gone not in tile.counters:
                report.add(
                    "nothing_to_replace",
                    at,
                    f"{option.name} replaces {gone!r}, which {tile.name} does not field.",
                    "Put it on the tile whose unit it replaces.",
                )
