"""The Heroes of Black Reach match page (issue 16, ``templates/matches/black_reach/``): the
battlefield drawn as SVG with the counters on their squares, played by tapping (a unit, then a
square it may move to or a target it may shoot or assault, whose exact odds are shown before
the shot), and the same commands as plain forms with selects for a browser without JS.

Everything is read from what the battle renders for one seat (``view``, ``legal_actions``,
``log_json``): a face-down Order token of the other seat never reaches the page. The board is
the battle's own (terrain, edges, the deployment zones and objectives), which both seats see.

**Hot seat**: a match created with the option ``hot_seat`` may be started by its creator with
both seats on this device (``/matches/{id}/hot-seat``: seat B joins as a guest held by the
creator; the invitation stops working). The page then shows the seat the battle waits on; when
that seat changes, a hand-off screen (no board, no tokens, only the public timeline) asks the
next player to tap "I am <name>" (``/matches/{id}/hand-off``). The creator's commands for
either seat go through ``/matches/{id}/hot-seat-act``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from starlette.datastructures import FormData

from app.core.i18n import gettext as _
from app.core.i18n import lazy
from app.core.ids import parse_int
from app.engine.black_reach import SYSTEM_ID
from app.matches.pages import Choice, OptionField, PageInput, PagePost, PageSystem, generic
from app.matches.pages import black_reach_cards as cards
from app.matches.pages import black_reach_gear as gear
from app.matches.pages import black_reach_rerolls as rerolls
from app.matches.pages.black_reach_fire import (
    burst_weapons,
    move_guns,
    share_candidates,
    shared_perils,
    template_squares,
)
from app.matches.pages.black_reach_units import (
    UnitExtras,
    extras_of,
    support_odds,
    supporters,
)
from app.matches.pages.generic import black_reach_fields
from app.matches.systems.black_reach import content
from app.matches.systems.black_reach import hot_seat as hot_seat_rules
from app.matches.systems.black_reach.game import EVENT_CODEC

if TYPE_CHECKING:
    from fastapi import Response

    from app.engine.match import Mission
    from app.matches.models import Match

__all__ = [
    "PAGE",
    "ActionForm",
    "Counter",
    "OrderForm",
    "build_command",
    "context",
    "hot_seat",
    "to_play",
    "waiting_on",
]

SEATS = ("A", "B")
DICE_KINDS = frozenset(
    {
        "shoot",
        "assault",
        "double_shot",
        "burst",
        "snipe",
        "overwatch",
        "vehicle_fire",
        "template_fire",
        "manifest",
        "flame",
        "grenade",
        "kombi",
        "demolish",
        # a reroll's new dice and the dice after the roll (rulings 155)
        "reroll",
        "keep_roll",
    }
)
FIRE_KINDS = frozenset(DICE_KINDS - {"assault", "manifest", "reroll", "keep_roll"})
QUARTER_FACINGS = ("N", "E", "S", "W")  # a template turns by quarter turns
UNDO_ANSWERS = frozenset({"approve_undo", "refuse_undo"})
FACINGS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
MAX_PATH = 40  # steps posted back in a move (the engine has its own bound)
MAX_ORDERS = 40
MAX_SUPPORTERS = 8  # the defender's zone of control has 8 squares
FACE_MARKS = {"reduced": "R", "inactive": "I", "wreck": "W", "ambush": "A", "flight": "F"}
SIDE_COLOURS = ("#2f6fdb", "#d23c3c")  # the scenario's first and second side
HAND_OFF = "hand_off"  # tells the shared page to render the answer, not redirect (no JS)

PHASES = {
    "order": lazy("Order phase"),
    "activation": lazy("Activation phase"),
    "reserve": lazy("Reserve phase"),
}
STAGES = {
    "setup": lazy("Deployment"),
    "battle": lazy("Battle"),
    "ended": lazy("Battle over"),
}
FACES = {
    "intact": lazy("intact face"),
    "reduced": lazy("reduced face"),
    "active": lazy("active face"),
    "inactive": lazy("inactive face"),
    "ambush": lazy("ambush face"),
    "flight": lazy("flight face"),
    "wreck": lazy("wreck"),
}
OUTCOMES = {
    "miss": lazy("miss"),
    "step": lazy("one step lost"),
    "coup_double": lazy("Coup Double: two steps"),
    "attacker_wins": lazy("the attacker wins"),
    "tie": lazy("a tie"),
    "defender_wins": lazy("the defender wins"),
    "nothing": lazy("no effect"),
    "suppressed": lazy("one Suppressed marker"),
    "step_and_suppressed": lazy("one step lost and a Suppressed marker"),
}


MARKERS = {
    "locomotion": lazy("Locomotion"),
    "hull": lazy("Hull"),
    "explosion": lazy("Explosion!"),
    "coup_double": lazy("Coup Double: a wreck"),
}
PERILS = {
    "works": lazy("the power works"),
    "draw_marker": lazy("a Perils of the Warp marker is drawn"),
    "step": lazy("the power works, the psyker loses a step"),
    "explodes": lazy("the psyker explodes, no power"),
}
HIT_SIDES = {"front": lazy("front"), "rear": lazy("rear"), "side": lazy("side")}
POWER_EFFECTS = {
    "endurance": lazy("Endurance"),
    "scriers_gaze": lazy("Scrier's Gaze"),
    "da_krunch": lazy("Da Krunch"),
}


def tr(table: Mapping[str, str], key: object) -> str:
    text = str(key)
    return _(table[text]) if text in table else text


def _outcome(key: str) -> str:
    if key.startswith("suppressed_"):
        return _("{n} Suppressed marker(s)").format(n=key.removeprefix("suppressed_"))
    return tr(OUTCOMES, key)


def _numbered(text: str) -> tuple[str, str]:
    head, _sep, tail = text.rpartition("_")
    return (head, tail) if tail.isdigit() else (text, "")


def weapon_label(weapon: str) -> str:
    """A heavy vehicle's weapon (``main_1``), or a template's (``template:B``), in words."""
    if weapon.startswith("template:"):
        return _("template {name}").format(name=weapon.removeprefix("template:"))
    slot, n = _numbered(weapon)
    if slot == "main":
        return _("main weapon {n}").format(n=n or 1)
    if slot == "secondary":
        return _("secondary weapon {n}").format(n=n or 1)
    return weapon


def marker_label(marker: str) -> str:
    """A Damage marker (``hull``, ``main_weapon_2``) in words."""
    kind, n = _numbered(marker)
    if kind == "main_weapon":
        return _("Main weapon {n} destroyed").format(n=n or 1)
    if kind == "secondary_weapon":
        return _("Secondary weapon {n} destroyed").format(n=n or 1)
    return tr(MARKERS, marker)


# -- hot seat -----------------------------------------------------------------------------------


def hot_seat(match: Match) -> bool:
    """Whether both seats of ``match`` are held by its creator on one device."""
    return hot_seat_rules.is_hot_seat(match)


def _offers_hot_seat(match: Match) -> bool:
    return hot_seat_rules.offers_hot_seat(match)


to_play = hot_seat_rules.to_play


def _last_actor(game: Any) -> str | None:
    envelopes = game.envelopes
    return str(envelopes[-1].actor) if envelopes else None


# -- the board ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Counter:
    """A unit's counter as the board draws it (its squares, the seat's own token or the
    token played, a face-down mark for one still hidden)."""

    id: str
    name: str
    side: str
    mine: bool
    x: int
    y: int
    squares: list[tuple[int, int]]
    colour: str
    short: str
    token: str  # "1", "S", "B" (bluff) or ""; the other seat's unplayed token is never here
    face_down: bool  # a token lies face down on it (its value shown only to its owner)
    face: str
    suppressed: int
    hit_points: int
    acted: bool
    destroyed: bool
    cls: str
    aboard: str = ""  # the transport it is in ("": none)
    passengers: int = 0  # a transport: the units aboard
    wreck: bool = False  # a destroyed vehicle lying on the battlefield as terrain
    destruction: int = 0  # a wreck's Destruction points
    damage: tuple[str, ...] = ()  # a heavy vehicle's Damage markers, as words
    immobilised: bool = False
    weapons: tuple[tuple[str, bool], ...] = ()  # a heavy vehicle: (weapon, destroyed)

    @property
    def slug(self) -> str:
        return _slug(self.id)

    @property
    def face_mark(self) -> str:
        """The letter drawn on a counter not on its first face ("" on an intact face)."""
        return FACE_MARKS.get(self.face, "")


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text)[:120]


def _short(name: str) -> str:
    words = [w for w in name.replace("-", " ").split() if w]
    return ("".join(w[0] for w in words[:3]) or "?").upper()


def _token_text(token: Mapping[str, Any] | None) -> str:
    if not token:
        return ""
    kind = token.get("kind")
    if kind == "numbered":
        return str(token.get("number"))
    return {"special": "S", "bluff": "B"}.get(str(kind), "?")


def counters(view: Mapping[str, Any]) -> list[Counter]:
    """The units of the view, on the board or not (``x``/``y`` -1 when not placed)."""
    you = view.get("you")
    sides = [str(s) for s in (view.get("seats") or {}).values()]
    order = sorted(set(sides), key=sides.index)
    out = []
    units = list(view.get("units", ()))
    aboard: dict[str, int] = {}
    for u in units:
        if u.get("embarked_in") and not u.get("destroyed"):
            aboard[str(u["embarked_in"])] = aboard.get(str(u["embarked_in"]), 0) + 1
    for u in units:
        at = u.get("at") or {}
        side = str(u.get("side"))
        colour = SIDE_COLOURS[order.index(side) % 2] if side in order else "#777"
        out.append(
            Counter(
                id=str(u["id"]),
                name=str(u.get("name") or u["id"]),
                side=side,
                mine=side == you,
                x=int(at.get("x", -1)),
                y=int(at.get("y", -1)),
                squares=[(int(s[0]), int(s[1])) for s in u.get("squares", ())],
                colour=colour,
                short=_short(str(u.get("name") or u["id"])),
                token=_token_text(u.get("token")),
                face_down=bool(u.get("face_down_token")),
                face=str(u.get("face") or ""),
                suppressed=int(u.get("suppressed") or 0),
                hit_points=int(u.get("hit_points") or 0),
                acted=bool(u.get("acted") or u.get("activated")),
                destroyed=bool(u.get("destroyed")),
                cls=str(u.get("class") or ""),
                aboard=str(u.get("embarked_in") or ""),
                passengers=aboard.get(str(u["id"]), 0),
                wreck=bool(u.get("wreck")),
                destruction=int(u.get("destruction") or 0),
                damage=tuple(marker_label(str(m)) for m in u.get("damage") or ()),
                immobilised=bool(u.get("immobilised")),
                weapons=tuple(
                    (weapon_label(str(w.get("weapon"))), bool(w.get("destroyed")))
                    for w in u.get("weapons") or ()
                    if isinstance(w, Mapping)
                ),
            )
        )
    return out


def picture_of(game: Any) -> Any:
    """The battlefield with both deployment zones and the objectives (the content library's
    drawing of the battle's own scenario)."""
    from app.blackreach.present import scenario_picture
    from app.engine.black_reach.board import with_ruins

    state = game.state
    scenario = getattr(state, "scenario", None)
    if scenario is None:
        return None
    ruined: frozenset[str] = getattr(state, "ruined", frozenset())
    board = with_ruins(scenario.board, ruined)  # a destroyed structure's ruin face (rulings 134)
    return scenario_picture(scenario if board is scenario.board else replace(scenario, board=board))


# -- the forms ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Odds:
    outcome: str
    label: str
    exact: str
    percent: str


@dataclass(frozen=True, slots=True)
class Aim:
    """One target of a Double Tir or a Rafale: its odds (Double Tir), or its odds for each
    share of the CV it may get (Rafale: (share, odds))."""

    target: str
    name: str
    odds: list[Odds] = field(default_factory=list)
    shares: list[tuple[int, list[Odds]]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ShotChoice:
    """One target a heavy vehicle's weapon may fire at (a suppression fire apart), with the
    shot's odds and, at a heavy vehicle, the edge hit and the odds of each Damage marker."""

    value: str  # posted: "0|<target>" (a shot) or "1|<target>" (a suppression fire)
    target: str
    label: str
    suppression: bool
    odds: list[Odds]
    side: str = ""
    damage_set: str = ""
    damage: list[Odds] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class WeaponAim:
    """A heavy vehicle's weapon that still works and what it may fire at."""

    weapon: str
    label: str
    choices: list[ShotChoice]
    shots: int = 1  # 2 with Double Tir: two targets (two selects of the same name)
    burst: bool = False  # Rafale: its modified CV may be split between targets instead

    @property
    def burst_targets(self) -> list[ShotChoice]:
        """The targets a Rafale's shares may go to (no suppression fire)."""
        return [c for c in self.choices if not c.suppression]

    @property
    def slug(self) -> str:
        return _slug(self.weapon)


@dataclass(frozen=True, slots=True)
class TemplateSpec:
    """A template to place on an intercase: its squares for each quarter turn (offsets from
    the intercase, for the preview), its CVs, its dispersion and the board's intercases."""

    id: str
    squares: dict[str, list[list[int]]]
    cv: list[tuple[str, str]] = field(default_factory=list)  # (class, CV or "X")
    dispersion: list[tuple[int, str]] = field(default_factory=list)  # (die face, direction)
    distance: int = 0
    range: int = 0  # Da Krunch: within this many squares of the psyker
    width: int = 0  # the highest intercase x
    height: int = 0

    @property
    def squares_json(self) -> str:
        return json.dumps(self.squares, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class ActionForm:
    """One command the seat may send now: a button, or the inputs it needs (a square, a
    path), with the odds of a shot or an assault."""

    kind: str
    label: str
    command: dict[str, Any]
    unit: str = ""
    target: str = ""
    squares: list[tuple[str, str]] = field(default_factory=list)  # deploy: ("x,y", label)
    paths: list[tuple[str, str, str]] = field(default_factory=list)  # move: (x,y, path, label)
    odds: list[Odds] = field(default_factory=list)
    dice: bool = False
    aims: list[Aim] = field(default_factory=list)  # Double Tir and Rafale targets
    cv: int = 0  # Rafale: the modified CV to split
    flips: bool = False  # a move: Changement d'état at its start or end may be asked
    supporters: list[tuple[str, str]] = field(default_factory=list)  # assault: (id, name)
    support_odds: list[tuple[int, list[Odds]]] = field(default_factory=list)  # by supporters
    hit_side: str = ""  # a shot at a heavy vehicle: the edge it comes through
    damage_set: str = ""
    damage: list[Odds] = field(default_factory=list)  # the odds of each Damage marker
    weapons: list[WeaponAim] = field(default_factory=list)  # vehicle_fire
    template: TemplateSpec | None = None  # template_fire, Da Krunch
    perils: list[Odds] = field(default_factory=list)  # manifest: the Perils of the Warp test
    perils_shared: list[Odds] = field(default_factory=list)  # ... with a marker shared
    sharers: list[tuple[str, str]] = field(default_factory=list)  # a Weirdboy's (id, name)
    cost: int = 0  # manifest: Suppressed markers
    picks: list[tuple[str, str]] = field(default_factory=list)  # cards: checkboxes (value, label)
    pick_name: str = ""  # draw_cards: "discard"; maintain_powers: "keep"
    bonus_units: list[tuple[str, str]] = field(default_factory=list)  # play_card: (id, name)
    card_text: str = ""  # play_card as a Battle Event: its text
    setting: str = ""  # ready_repair: the field posted ("modifier" or "pick")
    settings: list[tuple[str, str]] = field(default_factory=list)  # its (value, label)
    note: str = ""  # ready_repair: what the mechanic is readied with now
    reached: list[list[int]] = field(default_factory=list)  # flame: the squares it reaches
    demolish: list[tuple[str, str]] = field(default_factory=list)  # a move: Démolisseur's
    flame_during: bool = False  # a move: its unit's flamer may fire during it (move.flame)
    faces: list[tuple[str, str]] = field(default_factory=list)  # deploy: (face, label)
    fire_targets: list[tuple[str, str]] = field(default_factory=list)  # move: Tir en Mouvement
    fire_double: bool = False  # ... with a second target (Double Tir, rulings 123)
    # a heavy vehicle's move: its Tir en Mouvement weapons (name, label, Double Tir, Rafale)
    # when one has Rafale, whose modified CV the form may split (rulings 140)
    fire_guns: list[tuple[str, str, bool, bool]] = field(default_factory=list)

    @property
    def reached_json(self) -> str:
        return json.dumps(self.reached, separators=(",", ":"))

    @property
    def command_json(self) -> str:
        return json.dumps(self.command, separators=(",", ":"))

    @property
    def detailed(self) -> bool:
        """Whether the form has inputs or odds to show (else it is a single button)."""
        return (
            bool(self.squares or self.paths or self.odds or self.aims or self.weapons)
            or bool(
                self.template or self.perils or self.pick_name or self.bonus_units or self.card_text
            )
            or bool(self.settings)
        )

    @property
    def slug(self) -> str:
        extra = "sup" if self.command.get("suppression") else ""
        after = str(self.command.get("after") or "")  # En Alerte: one form per step
        # a move into a transport, a deployment aboard one (rulings 141)
        into = str(self.command.get("embark") or self.command.get("transport") or "")
        power = str(self.command.get("power") or "")  # manifest: one form per power, target
        weapon = str(self.command.get("weapon") or "")  # ... and per weapon (Objuration)
        card = str(self.command.get("card") or "")  # play_card: one form per card and use
        if card:
            extra = str(self.command.get("use") or "")
        if self.kind == "ready_equipment" and self.command.get("bonus"):
            extra = str(self.command.get("bonus"))  # a Boss Pole: one form per bonus
        if self.kind == "kombi":  # a Kombi Weapon: its Tir Direct, or a flame per direction
            extra = "direct" if not self.command.get("flame") else "flame"
        if self.kind == "choose_square":  # one form per square offered (rulings 142)
            extra = f"{self.command.get('x')}-{self.command.get('y')}"
        if self.kind == "flame" or (self.kind == "kombi" and self.command.get("flame")):
            # one form per direction (and transport square: rulings 137)
            extra = str(self.command.get("facing") or "")
            if self.command.get("x") is not None:
                extra += f"-{self.command.get('x')}-{self.command.get('y')}"
        power = power or str(self.command.get("option") or "")  # grenade: one per option
        if self.command.get("indirect"):
            extra = "ind"
        parts = (self.kind, self.unit, power, card, self.target or into, weapon, after, extra)
        return _slug("-".join(p for p in parts if p))


@dataclass(frozen=True, slots=True)
class OrderForm:
    """The Order phase: a select of the seat's tokens per unit."""

    command: dict[str, Any]
    units: list[tuple[str, str]]  # (id, name)
    tokens: list[tuple[str, str]]  # (posted value, label)

    @property
    def command_json(self) -> str:
        return json.dumps(self.command, separators=(",", ":"))


def _odds(raw: Mapping[str, Any], label: Callable[[str], str] | None = None) -> list[Odds]:
    out = []
    for key, exact in raw.items():
        value = Fraction(str(exact))
        words = (label or _outcome)(str(key))
        out.append(Odds(str(key), words, str(exact), f"{float(value) * 100:.1f} %"))
    return out


def _perils(key: str) -> str:
    return tr(PERILS, key)


CLASSES = {
    "infantry": lazy("infantry"),
    "light_vehicle": lazy("light vehicle"),
    "heavy_vehicle": lazy("heavy vehicle"),
}
DIRECTIONS = {
    (0, -1): "N",
    (1, -1): "NE",
    (1, 0): "E",
    (1, 1): "SE",
    (0, 1): "S",
    (-1, 1): "SW",
    (-1, 0): "W",
    (-1, -1): "NW",
}


def _template(entry: Mapping[str, Any], view: Mapping[str, Any]) -> TemplateSpec:
    """The template of a ``template_fire`` or Da Krunch entry."""
    board = view.get("board") or {}
    cv = entry.get("cv") or {}
    directions = []
    for face, d in enumerate(entry.get("dispersion") or (), 1):
        step = (int(d[0]), int(d[1]))
        directions.append((face, DIRECTIONS.get(step, f"{step[0]},{step[1]}")))
    return TemplateSpec(
        id=str(entry.get("template") or ""),
        squares=template_squares(entry.get("cells") or ()),
        cv=[(tr(CLASSES, k), "X" if v is None else str(v)) for k, v in cv.items()],
        dispersion=directions,
        distance=int(entry.get("distance") or 0),
        range=int(entry.get("range") or 0),
        width=int(board.get("width") or 0),
        height=int(board.get("height") or 0),
    )


def _weapons(
    entry: Mapping[str, Any], names: Mapping[str, str], bursts: frozenset[str] = frozenset()
) -> list[WeaponAim]:
    """A ``vehicle_fire`` entry's weapons, each with its targets (a suppression fire apart);
    those of ``bursts`` may fire a Rafale."""
    out = []
    for w in entry.get("weapons") or ():
        choices = []
        for t in w.get("targets") or ():
            target = str(t.get("target"))
            name = names.get(target, target)
            sup = bool(t.get("suppression"))
            label = _("suppression fire at {target}").format(target=name) if sup else name
            choices.append(
                ShotChoice(
                    value=f"{int(sup)}|{target}",
                    target=target,
                    label=label,
                    suppression=sup,
                    odds=_odds(t.get("odds") or {}),
                    side=tr(HIT_SIDES, t["side"]) if t.get("side") else "",
                    damage_set=str(t.get("damage_set") or ""),
                    damage=_odds(t.get("damage") or {}, marker_label),
                )
            )
        weapon = str(w.get("weapon"))
        shots = 2 if w.get("shots") == 2 else 1  # Double Tir: two different targets
        burst = weapon in bursts and sum(not c.suppression for c in choices) >= 2
        out.append(WeaponAim(weapon, weapon_label(weapon), choices, shots, burst))
    return out


def _square(x: int, y: int) -> str:
    return f"({x}, {y})"


def _label(
    kind: str,
    cmd: Mapping[str, Any],
    names: Mapping[str, str],
    where: tuple[int, int] | None = None,
) -> str:
    if kind in rerolls.KINDS:  # a reroll's answer, a power used again or not
        return rerolls.label(kind, cmd, names)
    unit = names.get(str(cmd.get("unit")), str(cmd.get("unit") or ""))
    target = names.get(str(cmd.get("target")), str(cmd.get("target") or ""))
    labels = {
        "deploy": _("Deploy {unit}").format(unit=unit),
        "end_deployment": _("My counters are deployed"),
        "move": _("Move {unit}").format(unit=unit),
        "reserve_move": _("Reserve move: {unit}").format(unit=unit),
        "scout_move": _("Scout move: {unit}").format(unit=unit),
        "end_scouting": _("End my Scout moves"),
        "hold": _("{unit} holds (reveal its token)").format(unit=unit),
        "end_reserve": _("End my Reserve phase"),
        "confirm_result": _("Confirm the result"),
    }
    if kind == "shoot":
        if cmd.get("suppression"):
            return _("{unit}: suppression fire at {target}").format(unit=unit, target=target)
        return _("{unit} shoots {target}").format(unit=unit, target=target)
    if kind == "assault":
        return _("{unit} assaults {target}").format(unit=unit, target=target)
    if kind == "double_shot":
        return _("{unit}: Double Tir at two targets").format(unit=unit)
    if kind == "snipe":
        return _("{unit}: sniper shot at {target}").format(unit=unit, target=target)
    if kind == "overwatch":
        square = _square(*where) if where else "?"
        if cmd.get("suppression"):
            return _("{unit}: En Alerte, suppression fire at {target} on {square}").format(
                unit=unit, target=target, square=square
            )
        return _("{unit}: En Alerte at {target} on {square}").format(
            unit=unit, target=target, square=square
        )
    if kind == "pass_overwatch":
        return _("No En Alerte: {target} moves on").format(target=target)
    if kind == "embark":
        return _("{unit} gets into {transport}").format(unit=unit, transport=target)
    if kind == "choose_square":  # the owner's square for its unit (rulings 142)
        square = _square(int(cmd.get("x") or 0), int(cmd.get("y") or 0))
        if cmd.get("why") == "retreat":
            text = _("{unit} retreats to {square}").format(unit=unit, square=square)
        elif cmd.get("why") == "out of the wreck":  # a destroyed transport's passenger (143)
            text = _("{unit} gets out of the wreck to {square}").format(unit=unit, square=square)
        else:
            text = _("{unit} is pushed aside to {square}").format(unit=unit, square=square)
        return (
            _("{choice} (the first open square)").format(choice=text)
            if cmd.get("default")
            else text
        )
    if kind == "deploy_aboard":
        transport = names.get(str(cmd.get("transport")), str(cmd.get("transport") or ""))
        return _("Deploy {unit} aboard {transport}").format(unit=unit, transport=transport)
    if kind in ("move", "reserve_move") and cmd.get("aboard"):
        aboard = names.get(str(cmd.get("aboard")), str(cmd.get("aboard")))
        return _("{unit} gets out of {transport}").format(unit=unit, transport=aboard)
    if kind == "burst":
        return _("{unit}: Rafale, its CV split between targets").format(unit=unit)
    if kind == "vehicle_fire":
        return _("{unit} fires its weapons").format(unit=unit)
    if kind == "grenade":
        option = names.get(str(cmd.get("option")), str(cmd.get("option") or ""))
        return _("{unit} throws {option} ({n} left)").format(
            unit=unit, option=option, n=cmd.get("left")
        )
    if kind == "kombi":  # its Tir Direct (its Lance-Flammes is a gear form)
        option = names.get(str(cmd.get("option")), str(cmd.get("option") or ""))
        return _("{unit}: {option}, Tir Direct (template, {n} left)").format(
            unit=unit, option=option, n=cmd.get("left")
        )
    if kind == "template_fire":
        if cmd.get("indirect"):
            return _("{unit}: Tir Indirect (template)").format(unit=unit)
        return _("{unit}: Tir Direct (template)").format(unit=unit)
    if kind == "manifest":
        power = names.get(str(cmd.get("power")), str(cmd.get("power") or ""))
        if cmd.get("target") and cmd.get("weapon"):
            return _("{unit} manifests {power} on {target} ({weapon})").format(
                unit=unit, power=power, target=target, weapon=weapon_label(str(cmd["weapon"]))
            )
        if cmd.get("target"):
            return _("{unit} manifests {power} on {target}").format(
                unit=unit, power=power, target=target
            )
        return _("{unit} manifests {power}").format(unit=unit, power=power)
    return labels.get(kind, kind.replace("_", " "))


def assault_starts(entry: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Where an assault may start (the battle's ``from``, nearest first), as the page's path
    choices: (square, path, label)."""
    out: list[tuple[str, str, str]] = []
    for start in entry.get("from") or ():
        square = start.get("square")
        path = json.dumps(start.get("path") or [], separators=(",", ":"))
        if square is None:
            out.append(("", path, _("where it stands")))
        else:
            x, y = int(square[0]), int(square[1])
            out.append((f"{x},{y}", path, _square(x, y)))
    return out


def _embark_forms(
    kind: str,
    cmd: Mapping[str, Any],
    paths: list[tuple[str, str, str]],
    extras: UnitExtras,
    names: Mapping[str, str],
) -> list[ActionForm]:
    """An infantry unit's move into each of its side's transports: the move's ends next to
    the transport, or where it stands when it is next to it already."""
    out = []
    for transport, near in extras.transports.items():
        ends = [p for p in paths if p[0] and tuple(map(int, p[0].split(","))) in near]
        ends.append(("", "[]", _("where it stands")))
        command = {**cmd, "embark": transport}
        out.append(
            ActionForm(
                kind="embark",
                label=_label("embark", {**cmd, "target": transport}, names),
                command=command,
                unit=str(cmd.get("unit") or ""),
                target=transport,
                paths=ends,
            )
        )
    return out


def _assault_support(
    state: Any, cmd: Mapping[str, Any], target: str, names: Mapping[str, str]
) -> tuple[list[tuple[str, str]], list[tuple[int, list[Odds]]]]:
    if state is None:
        return [], []
    found = supporters(state, str(cmd.get("unit") or ""), target)
    odds = support_odds(state, str(cmd.get("unit") or ""), target, len(found))
    return (
        [(uid, names.get(uid, uid)) for uid in found],
        [(n, _odds({k: str(v) for k, v in o.items()})) for n, o in odds],
    )


def action_forms(
    actions: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    extras: Mapping[str, UnitExtras] | None = None,
    state: Any = None,
    view: Mapping[str, Any] | None = None,
) -> tuple[list[ActionForm], OrderForm | None]:
    """The forms of the seat's legal actions; with the battle's ``state`` and the seat's
    units' ``extras``, an assault's supporters (with the odds for each number of them), a
    move's Changement d'état and its moves into a transport; a heavy vehicle's weapons, a
    template (its squares for the preview, the intercases of the ``view``'s board) and a
    psyker's powers (the Perils odds, a Weirdboy's units to share the cost with)."""
    extras = extras or {}
    view = view or {}
    forms: list[ActionForm] = []
    orders: OrderForm | None = None
    flamers = {  # the units whose flamer may fire now: during their move too (rulings 109)
        str((a.get("command") or {}).get("unit"))
        for a in actions
        if (a.get("command") or {}).get("type") == "flame"
    }
    for entry in actions:
        cmd = dict(entry.get("command") or {})
        kind = str(cmd.get("type") or "")
        if not kind or kind in UNDO_ANSWERS:
            continue
        if kind in gear.GEAR_KINDS or (kind == "kombi" and cmd.get("flame")):
            geared = gear.gear_form(entry, cmd, names)
            forms.append(
                ActionForm(
                    kind=kind,
                    label=geared.label,
                    command=cmd,
                    unit=str(cmd.get("unit") or ""),
                    aims=[Aim(t, n) for t, n in geared.targets],
                    dice=kind in DICE_KINDS,
                    setting=geared.setting,
                    settings=geared.settings,
                    note=geared.note,
                    reached=[
                        [int(sq[0]), int(sq[1])]
                        for sq in entry.get("reached") or ()
                        if isinstance(sq, list | tuple) and len(sq) == 2
                    ],
                )
            )
            continue
        if kind in cards.CARD_KINDS:
            made = cards.card_form(entry, cmd, names, view)
            forms.append(
                ActionForm(
                    kind=kind,
                    label=made.label,
                    command=cmd,
                    picks=made.picks,
                    pick_name=made.pick_name,
                    bonus_units=made.units,
                    card_text=made.text,
                )
            )
            continue
        if kind == "place_orders":
            tokens: list[tuple[str, str]] = []
            for t in entry.get("tokens", ()):
                if t.get("kind") == "numbered":
                    value = f"n:{t.get('number')}"
                    label = _("Token {n}").format(n=t.get("number"))
                elif t.get("kind") == "special":
                    value, label = "special", _("Special token")
                else:
                    value, label = "bluff", _("Bluff token")
                if (value, label) not in tokens:
                    tokens.append((value, label))
            units = [(str(u), names.get(str(u), str(u))) for u in entry.get("units", ())]
            orders = OrderForm(cmd, units, tokens)
            continue
        squares = [(f"{x},{y}", _square(x, y)) for x, y in entry.get("zone", ())]
        paths = [
            (key, json.dumps(steps, separators=(",", ":")), _square(*map(int, key.split(","))))
            for key, steps in (entry.get("paths") or {}).items()
        ]
        if kind == "assault":
            paths = assault_starts(entry)
        aims = [
            Aim(
                str(t.get("target")),
                names.get(str(t.get("target")), str(t.get("target"))),
                odds=_odds(t.get("odds") or {}) if kind == "double_shot" else [],
                shares=(
                    [(int(k), _odds(v)) for k, v in (t.get("odds") or {}).items()]
                    if kind == "burst"
                    else []
                ),
            )
            for t in entry.get("targets") or ()
        ]
        target = str(cmd.get("target") or entry.get("target") or "")
        square = entry.get("square")
        where = (int(square[0]), int(square[1])) if square else None
        unit = str(cmd.get("unit") or "")
        mine = extras.get(unit, UnitExtras())
        moving = kind in ("move", "reserve_move")
        standing = [
            (str(s.get("id")), _structure_label(s, names))
            for s in view.get("structures") or ()
            if isinstance(s, Mapping) and s.get("standing")
        ]
        if moving and mine.flips:
            paths.append(("", "[]", _("where it stands")))
        helpers, by_count = (
            _assault_support(state, cmd, target, names) if kind == "assault" else ([], [])
        )
        cost = int(entry.get("cost") or 0)
        sharers = (
            share_candidates(state, unit, cost) if kind == "manifest" and state is not None else []
        )
        templated = kind in ("template_fire", "grenade", "kombi") or (
            kind == "manifest" and "cells" in entry
        )
        forms.append(
            ActionForm(
                kind=kind,
                label=_label(
                    kind,
                    {
                        **cmd,
                        "target": target,
                        "aboard": mine.aboard,
                        "left": entry.get("markers"),
                        "why": entry.get("why"),
                        "default": entry.get("default"),
                    },
                    names,
                    where,
                ),
                command=cmd,
                unit=unit,
                target=target if kind != "pass_overwatch" else "",
                squares=squares,
                faces=[(str(k), tr(FACES, str(k))) for k in entry.get("faces") or ()],
                paths=paths,
                odds=_odds(entry.get("odds") or {}),
                dice=kind in DICE_KINDS,
                aims=aims,
                cv=int(entry.get("cv") or 0) if kind == "burst" else 0,
                flips=moving and mine.flips,
                demolish=standing if moving and mine.demolisher else [],
                flame_during=kind == "move" and unit in flamers,
                fire_targets=[
                    (str(t), names.get(str(t), str(t))) for t in entry.get("fire_targets") or ()
                ],
                fire_double=bool(entry.get("double_shot")),
                fire_guns=[
                    (w, weapon_label(w), double, burst)
                    for w, double, burst in move_guns(state, unit)
                ]
                if kind == "move" and entry.get("fire_targets")
                else [],
                supporters=helpers,
                support_odds=by_count,
                hit_side=tr(HIT_SIDES, entry["side"]) if entry.get("side") else "",
                damage_set=str(entry.get("damage_set") or ""),
                damage=_odds(entry.get("damage") or {}, marker_label),
                weapons=(
                    _weapons(entry, names, burst_weapons(state, unit))
                    if kind == "vehicle_fire"
                    else []
                ),
                template=_template(entry, view) if templated else None,
                perils=_odds(entry.get("perils") or {}, _perils),
                perils_shared=(
                    _odds({k: str(v) for k, v in shared_perils(state, unit, cost).items()}, _perils)
                    if sharers
                    else []
                ),
                sharers=[(uid, names.get(uid, uid)) for uid in sharers],
                cost=cost,
                note=(  # En Alerte by a heavy vehicle: every weapon that can fires
                    _("With: {weapons}").format(
                        weapons=", ".join(weapon_label(str(w)) for w in entry["weapons"])
                    )
                    if kind == "overwatch" and entry.get("weapons")
                    else ""
                ),
            )
        )
        if moving and mine.transports:
            forms.extend(_embark_forms(kind, cmd, paths, mine, names))
    return forms, orders


def _structure_label(s: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """A structure in a Démolisseur's choice: its name and Destruction points so far."""
    return _("{structure} ({points} of {value} Destruction points)").format(
        structure=gear.structure_label(str(s.get("id") or ""), names),
        points=s.get("points", 0),
        value=s.get("value"),
    )


def _int(text: object, low: int, high: int) -> int | None:
    """A form's whole number in ASCII digits within ``low..high`` (``"٣"`` or ``"²"`` is
    none)."""
    return parse_int(text, low, high)


def _place(form: FormData, cmd: dict[str, Any]) -> None:
    """A template's intercase and quarter turn, when the form has them (an intercase left
    blank or not a number is not sent: the battle refuses the command)."""
    if "x" not in form and "y" not in form:
        return
    x, y = _int(form.get("x"), -1, 999), _int(form.get("y"), -1, 999)
    if x is None or y is None:
        cmd.pop("x", None)
        cmd.pop("y", None)
    else:
        cmd["x"], cmd["y"] = x, y
    facing = form.get("facing")
    if isinstance(facing, str) and facing in QUARTER_FACINGS:
        cmd["facing"] = facing


def _move_burst(form: FormData, cmd: dict[str, Any]) -> None:
    """A heavy vehicle's Rafale during its move (rulings 140): the shares filled in
    (``burst.<weapon>.<target>``) make the move name its weapons (``weapons``, as
    ``vehicle_fire``'s shots): each weapon with shares splits its CV, each other Tir en
    Mouvement weapon (``move_gun``: ``"<weapon>|<0|1>"``, 1 for Double Tir) fires at the first
    target, a Double Tir one at the second too. No share filled in: ``fire_at`` as before."""
    bursts: dict[str, list[dict[str, Any]]] = {}
    for key, value in form.multi_items():
        if key.startswith("burst.") and isinstance(value, str):
            weapon, dot, target = key.removeprefix("burst.").partition(".")
            n = _int(value, 1, 99)  # 0 or empty: not a target
            if dot and weapon and target and n is not None:
                bursts.setdefault(weapon[:60], []).append(
                    {"weapon": weapon[:60], "target": target[:200], "share": n}
                )
    if not bursts:
        return
    first = cmd.pop("fire_at", None)
    second = cmd.pop("fire_second", None)
    shots: list[dict[str, Any]] = []
    for value in form.getlist("move_gun")[:MAX_ORDERS]:
        if not isinstance(value, str):
            continue
        weapon, _sep, double = value.partition("|")
        weapon = weapon[:60]
        if weapon in bursts:
            shots.extend(bursts.pop(weapon))
            continue
        if first:
            shots.append({"weapon": weapon, "target": first})
        if double == "1" and second:
            shots.append({"weapon": weapon, "target": second})
    for shares in bursts.values():  # a weapon not listed: the battle refuses it by name
        shots.extend(shares)
    cmd["weapons"] = shots[:MAX_ORDERS]
    n = _int(form.get("fire_after"), 0, MAX_PATH)
    if n is not None:  # empty: at the end of the move
        cmd["fire_after"] = n


def build_command(form: FormData, cmd: dict[str, Any]) -> dict[str, Any]:
    """A Black Reach command from its form: a deployment's square and facing, a move's or an
    assault's path (the one the page proposed for the square chosen), the Order tokens per
    unit, a heavy vehicle's shots (``shot.<weapon>``: ``"<0|1>|<target>"``, 1 for a
    suppression fire; a Rafale's shares ``burst.<weapon>.<target>``, replacing that weapon's
    shot), a template's intercase and quarter turn, a Weirdboy's ``share``, a move's
    Démolisseur structure and its flame (``flame``, ``fire_after``)."""
    kind = cmd.get("type")
    if kind == "deploy":
        square = str(form.get("square") or "")
        if "," in square:
            x, y = (_int(v, -1, 999) for v in square.split(",", 1))
            if x is not None and y is not None:
                cmd["x"], cmd["y"] = x, y
        facing = form.get("facing")
        if isinstance(facing, str) and facing in FACINGS:
            cmd["facing"] = facing
        face = form.get("face")  # in ambush or not (rulings 114); the battle checks the counter
        if isinstance(face, str) and face in FACES:
            cmd["face"] = face
    elif kind in ("move", "reserve_move", "assault", "scout_move"):
        raw = form.get("path")
        try:
            steps = json.loads(raw) if isinstance(raw, str) and len(raw) < 4_000 else []
        except (ValueError, RecursionError):
            steps = []
        if isinstance(steps, list):
            cmd["path"] = [
                {"x": s[0], "y": s[1], "facing": s[2]}
                for s in steps[:MAX_PATH]
                if isinstance(s, list)
                and len(s) == 3
                and all(isinstance(v, int) for v in s[:2])
                and s[2] in FACINGS
            ]
        flip = form.get("flip")
        if kind == "move" and flip in ("start", "end"):
            cmd["flip"] = flip
        demolish = form.get("demolish")  # Démolisseur: the structure named (none: empty)
        if kind in ("move", "reserve_move") and isinstance(demolish, str) and demolish:
            cmd["demolish"] = demolish[:200]
        flame = form.get("flame")  # the flamer fired during the move, after some steps
        if kind == "move" and isinstance(flame, str) and flame in QUARTER_FACINGS:
            cmd["flame"] = flame
            after = form.get("fire_after")
            n = _int(after, 0, MAX_PATH)
            if n is not None:  # empty: at the end of the move
                cmd["fire_after"] = n
        fire_at = form.get("fire_at")  # Tir en Mouvement, and Double Tir's second target
        if kind == "move" and isinstance(fire_at, str) and fire_at and not cmd.get("flame"):
            cmd["fire_at"] = fire_at[:200]
            second = form.get("fire_second")
            if isinstance(second, str) and second:
                cmd["fire_second"] = second[:200]
            n = _int(form.get("fire_after"), 0, MAX_PATH)
            if n is not None:  # empty: at the end of the move
                cmd["fire_after"] = n
        if kind == "move" and not cmd.get("flame"):
            _move_burst(form, cmd)
        if kind == "assault":
            chosen = [v[:200] for v in form.getlist("supporter") if isinstance(v, str) and v]
            if chosen:
                cmd["supporters"] = list(dict.fromkeys(chosen))[:MAX_SUPPORTERS]
    elif kind == "double_shot":
        targets = [form.get(key) for key in ("target1", "target2")]
        cmd["targets"] = [t[:200] for t in targets if isinstance(t, str) and t]
    elif kind == "burst":
        shares = []
        for key, value in form.multi_items():
            if not key.startswith("share.") or not isinstance(value, str):
                continue
            if (n := _int(value, 1, 99)) is not None:  # 0 or empty: not a target
                shares.append({"target": key.removeprefix("share.")[:200], "cv": n})
        cmd["shares"] = shares[:MAX_ORDERS]
    elif kind == "vehicle_fire":
        shots = []
        bursts: dict[str, list[dict[str, Any]]] = {}  # Rafale: a weapon's shares by target
        for key, value in form.multi_items():
            if key.startswith("burst.") and isinstance(value, str):
                weapon, dot, target = key.removeprefix("burst.").partition(".")
                n = _int(value, 1, 99)  # 0 or empty: not a target
                if dot and weapon and target and n is not None:
                    bursts.setdefault(weapon[:60], []).append(
                        {"weapon": weapon[:60], "target": target[:200], "suppression": False}
                        | {"share": n}
                    )
        for key, value in form.multi_items():
            if not key.startswith("shot.") or not isinstance(value, str) or not value:
                continue  # a weapon left silent
            flag, sep, target = value.partition("|")
            weapon = key.removeprefix("shot.")[:60]
            if sep and flag in ("0", "1") and target and weapon not in bursts:
                shots.append({"weapon": weapon, "target": target[:200], "suppression": flag == "1"})
        for shares in bursts.values():  # a weapon's Rafale replaces its single shot
            shots.extend(shares)
        first = form.get("first")  # the weapon fired first (the others in the form's order)
        shots.sort(key=lambda shot: shot["weapon"] != first)
        cmd["shots"] = shots[:MAX_ORDERS]
    elif kind in gear.GEAR_KINDS:
        gear.read_form(form, cmd)
    elif kind in ("template_fire", "manifest", "grenade") or (
        kind == "kombi" and not cmd.get("flame")
    ):
        _place(form, cmd)
        if kind == "manifest":
            share = form.get("share")
            if isinstance(share, str) and share:
                cmd["share"] = share[:200]
    elif kind in cards.CARD_KINDS:
        cards.read_form(form, cmd)
    elif kind == "place_orders":
        orders = []
        for key, value in form.multi_items():
            if not key.startswith("order.") or not isinstance(value, str) or not value:
                continue
            unit = key.removeprefix("order.")[:200]
            if value.startswith("n:") and (n := _int(value[2:], 1, 99)) is not None:
                orders.append({"unit": unit, "kind": "numbered", "number": n})
            elif value in ("special", "bluff"):
                orders.append({"unit": unit, "kind": value})
        cmd["orders"] = orders[:MAX_ORDERS]
    return cmd


def waiting_on(view: Mapping[str, Any] | None, actions: Sequence[Mapping[str, Any]]) -> str | None:
    if view is None:
        return None
    kinds = {str((a.get("command") or {}).get("type")) for a in actions}
    if kinds & UNDO_ANSWERS:
        return _("An undo to approve or refuse")
    if hot_seat_rules.waits_on(actions):  # a card to play is not a move owed
        return _("Your move")
    return None


# -- the timeline -------------------------------------------------------------------------------


def _token_words(token: object) -> str:
    if not isinstance(token, Mapping):
        return "?"
    if token.get("kind") == "numbered":
        return _("token {n}").format(n=token.get("number"))
    return _("Special token") if token.get("kind") == "special" else _("Bluff token")


def _at(step: object) -> str:
    if not isinstance(step, Mapping):
        return "?"
    return _square(int(step.get("x", 0)), int(step.get("y", 0)))


def _marker_key(ev: Mapping[str, Any]) -> str:
    marker = str(ev.get("marker") or "")
    if marker in ("main_weapon", "secondary_weapon"):
        return f"{marker}_{ev.get('number') or 1}"
    return marker


def describe(ev: Mapping[str, Any], names: Mapping[str, str], sides: Mapping[str, str]) -> str:
    """A Black Reach event as a sentence (the generic page's words for any other)."""
    kind = str(ev.get("type") or "")
    unit = names.get(str(ev.get("unit")), str(ev.get("unit") or ""))
    target = names.get(str(ev.get("target")), str(ev.get("target") or ""))
    side = sides.get(str(ev.get("side")), str(ev.get("side") or ""))
    if kind in cards.EVENT_KINDS:
        return cards.describe(ev, names, sides) or kind
    if kind in gear.EVENT_KINDS:
        return gear.describe(ev, names, _at) or kind
    if kind in rerolls.EVENT_KINDS:
        return rerolls.describe(ev, names, sides)
    if kind == "battle_created":
        return _("The battle is set up.")
    if kind == "unit_deployed":
        return _("{unit} is deployed on {square}.").format(unit=unit, square=_at(ev.get("to")))
    if kind == "unit_deployed_aboard":
        transport = names.get(str(ev.get("transport")), str(ev.get("transport") or ""))
        return _("{unit} is deployed aboard {transport}.").format(unit=unit, transport=transport)
    if kind == "deployment_ended":
        return _("{side} has deployed.").format(side=side)
    if kind == "turn_started":
        first = sides.get(str(ev.get("initiative")), str(ev.get("initiative")))
        return _("Game turn {n} starts; {side} has the initiative.").format(
            n=ev.get("turn"), side=first
        )
    if kind == "orders_placed":
        return _("{side} places its Order tokens face down.").format(side=side)
    if kind == "orders_committed":
        return _("{side}'s tokens are committed: their fingerprints are public.").format(side=side)
    if kind == "order_revealed":
        return _("{side} reveals {token} on {unit}.").format(
            side=side, token=_token_words(ev.get("token")), unit=unit
        )
    if kind == "unit_moved":
        path = ev.get("path") or []
        end = _at(path[-1]) if path else "?"
        return _("{unit} moves to {square}.").format(unit=unit, square=end)
    if kind == "unit_shot":
        weapon = str(ev.get("weapon") or "")
        if weapon.startswith(("template:", "power:")):
            # every unit under a template (Tir Direct / Indirect, a power's), one by one
            name = (
                _("Template {name}").format(name=weapon.removeprefix("template:"))
                if weapon.startswith("template:")
                else names.get(weapon.removeprefix("power:"), weapon.removeprefix("power:"))
            )
            head = _("{weapon} of {unit} at {target}").format(weapon=name, unit=unit, target=target)
        elif weapon:
            head = (
                _("{unit}: suppression fire with its {weapon} at {target}")
                if ev.get("suppression")
                else _("{unit} fires its {weapon} at {target}")
            ).format(unit=unit, weapon=weapon_label(weapon), target=target)
        else:
            head = (
                _("{unit}: suppression fire at {target}").format(unit=unit, target=target)
                if ev.get("suppression")
                else _("{unit} shoots {target}").format(unit=unit, target=target)
            )
        if ev.get("side"):
            head = _("{head} (through its {side})").format(
                head=head, side=tr(HIT_SIDES, ev.get("side"))
            )
        return _("{head}: {final} against {dv}, {outcome}.").format(
            head=head,
            final=ev.get("final"),
            dv=ev.get("dv"),
            outcome=_outcome(str(ev.get("outcome"))),
        )
    if kind == "unit_sniped":
        return _("{unit}: sniper shot at {target}: {result}, {outcome}.").format(
            unit=unit,
            target=target,
            result=ev.get("result"),
            outcome=_outcome(str(ev.get("effect"))),
        )
    if kind == "scouting_started":
        return _("Scout moves before the first turn.")
    if kind == "scout_moved":
        path = ev.get("path") or []
        return _("{unit} makes its Scout move to {square}.").format(
            unit=unit, square=_at(path[-1]) if path else "?"
        )
    if kind == "scouting_ended":
        return _("{side} has made its Scout moves.").format(side=side)
    if kind == "move_declared" and ev.get("assault"):  # rulings 122
        path = ev.get("path") or []
        attacked = names.get(str(ev.get("assault")), str(ev.get("assault")))
        return _(
            "{unit} declares an assault on {target} from {square}: the other side may fire "
            "En Alerte."
        ).format(unit=unit, target=attacked, square=_at(path[-1]) if path else "?")
    if kind == "move_declared":
        path = ev.get("path") or []
        return _("{unit} declares a move to {square}: the other side may fire En Alerte.").format(
            unit=unit, square=_at(path[-1]) if path else "?"
        )
    if kind == "overwatch_answered":
        if ev.get("unit"):
            return _("{unit} fires En Alerte after step {n}.").format(unit=unit, n=ev.get("after"))
        return _("{side} lets the move go on without En Alerte.").format(side=side)
    if kind == "burst_declared":
        if ev.get("weapon"):  # a heavy vehicle's weapon with Rafale
            return _(
                "{unit} announces a Rafale with its {weapon}: its CV {cv} split between {n} "
                "targets."
            ).format(
                unit=unit,
                weapon=weapon_label(str(ev["weapon"])),
                cv=ev.get("modified_cv"),
                n=len(ev.get("shares") or ()),
            )
        return _("{unit} announces a Rafale: its CV {cv} split between {n} targets.").format(
            unit=unit, cv=ev.get("modified_cv"), n=len(ev.get("shares") or ())
        )
    if kind == "assault_resolved":
        return _("{unit} assaults {target}: {a} against {d}, {outcome}.").format(
            unit=unit,
            target=target,
            a=ev.get("attacker_total"),
            d=ev.get("defender_total"),
            outcome=_outcome(str(ev.get("outcome"))),
        )
    if kind == "damage_located":
        return _("{unit}: location {result} on Damage set {set}: {marker}.").format(
            unit=unit,
            result=ev.get("result"),
            set=ev.get("damage_set"),
            marker=marker_label(_marker_key(ev)),
        )
    if kind == "destruction_dealt":
        wreck = names.get(str(ev.get("wreck")), str(ev.get("wreck") or ""))
        by = names.get(str(ev.get("by")), str(ev.get("by") or ""))
        text = (
            _("{by} drives into the wreck of {wreck}: {n} Destruction point(s), {total} in all.")
            if by
            else _("The wreck of {wreck} takes {n} Destruction point(s), {total} in all.")
        ).format(by=by, wreck=wreck, n=ev.get("points"), total=ev.get("total"))
        if ev.get("removed"):
            text += " " + _("The wreck is removed.")
        return text
    if kind == "template_placed":
        landed = _at(ev.get("landed"))
        under = ", ".join(names.get(str(t), str(t)) for t in ev.get("targets") or ())
        if ev.get("indirect"):
            text = _(
                "{unit} fires template {template} indirectly at {aimed}: it lands on {square}."
            )
        else:
            text = _("{unit} places template {template} on {square}.")
        text = text.format(
            unit=unit, template=ev.get("template"), aimed=_at(ev.get("aimed")), square=landed
        )
        more = _("Under it: {units}.").format(units=under) if under else _("Nobody is under it.")
        return f"{text} {more}"
    if kind == "power_manifested":
        power = names.get(str(ev.get("power")), str(ev.get("power") or ""))
        head = (
            _("{unit} manifests {power} on {target}").format(unit=unit, power=power, target=target)
            if ev.get("target")
            else _("{unit} manifests {power}").format(unit=unit, power=power)
        )
        text = _("{head}: Perils of the Warp {result}, {perils}.").format(
            head=head, result=ev.get("result"), perils=_perils(str(ev.get("perils")))
        )
        if ev.get("marker"):
            text += " " + _("Marker drawn: {marker}.").format(marker=ev.get("marker"))
        text += " " + (_("The power applies.") if ev.get("applies") else _("No power."))
        return text
    if kind == "suppressed_removed":
        return _("{unit}: {n} Suppressed marker(s) removed.").format(unit=unit, n=ev.get("count"))
    if kind == "power_lost":
        power = names.get(str(ev.get("power")), str(ev.get("power") or ""))
        return _("{unit} loses {power} for the rest of the battle.").format(unit=unit, power=power)
    if kind == "initiative_kept":
        return _("{side} keeps the initiative next turn.").format(side=side)
    if kind == "armour_save":
        return (
            _("{unit} saves: {result} against {value}.")
            if ev.get("saved")
            else _("{unit} fails its save: {result} against {value}.")
        ).format(unit=unit, result=ev.get("result"), value=ev.get("value"))
    if kind == "steps_taken":
        if ev.get("destroyed"):
            return _("{unit} is destroyed.").format(unit=unit)
        return _("{unit} loses {n} step(s).").format(unit=unit, n=ev.get("steps"))
    if kind == "suppressed_placed":
        return _("{unit} takes {n} Suppressed marker(s).").format(unit=unit, n=ev.get("count"))
    if kind == "unit_flipped":
        return _("{unit} changes state: it now shows its {face}.").format(
            unit=unit, face=tr(FACES, ev.get("face"))
        )
    if kind == "unit_spotted":  # an ambushed unit turns to its Inactive face (rulings 114)
        return _spotted(ev, unit, names)
    if kind == "square_awaited" and ev.get("why") == "out of the wreck":  # rulings 143
        transport = names.get(str(ev.get("attacker")), str(ev.get("attacker") or ""))
        return _("{unit} gets out of the wreck of {transport}: its owner chooses where.").format(
            unit=unit, transport=transport
        )
    if kind == "square_awaited":  # rulings 142
        return _("{unit} must leave its square: its owner chooses where.").format(unit=unit)
    if kind == "forced_move" and ev.get("why") == "out of the wreck":  # rulings 143
        return _("{unit} gets out of the wreck to {square} (a Forced Move).").format(
            unit=unit, square=_at(ev.get("to"))
        )
    if kind == "forced_move" and ev.get("why") == "pushed aside by the vehicle":  # rulings 119
        return _("{unit} is pushed aside to {square} (a Forced Move).").format(
            unit=unit, square=_at(ev.get("to"))
        )
    if kind == "unit_embarked":
        transport = names.get(str(ev.get("transport")), str(ev.get("transport") or ""))
        return _("{unit} gets into {transport}.").format(unit=unit, transport=transport)
    if kind == "units_activated":
        helpers = ", ".join(names.get(str(u), str(u)) for u in ev.get("units") or ())
        return _("Supporting the assault (Activated): {units}.").format(units=helpers)
    if kind == "reserve_ended":
        return _("{side} ends its Reserve phase.").format(side=side)
    if kind == "turn_ended":
        return _("Game turn {n} ends.").format(n=ev.get("turn"))
    if kind == "battle_ended":
        winner = ev.get("winner")
        if winner:
            return _("The battle is over: {side} wins.").format(
                side=sides.get(str(winner), str(winner))
            )
        return _("The battle is over: a draw.")
    return generic.describe(ev, names, {})


def _spotted(ev: Mapping[str, Any], unit: str, names: Mapping[str, str]) -> str:
    by = names.get(str(ev.get("by")), str(ev.get("by") or ""))
    why = ev.get("why")
    if why == "auspex":
        text = _("The Auspex of {by} spots {unit} in ambush.")
    elif why == "assault":
        text = _("{unit} is engaged in an assault: its ambush ends.")
    elif why == "shoots":
        text = _("{unit} leaves its ambush to shoot.")
    else:
        text = _("{by} spots {unit} in ambush.")
    return text.format(by=by, unit=unit) + " " + _("It turns to its Inactive face.")


def timeline(
    entries: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    players: Mapping[str, str],
    seats: Mapping[str, str],
) -> list[generic.Line]:
    """The latest entries as Black Reach sentences, newest first (a side named by its
    player)."""
    sides = {side: f"{players.get(seat) or seat} ({side})" for seat, side in seats.items()}
    lines = generic.timeline(entries, names, players)
    by_seq = {int(e.get("seq") or 0): e.get("event") or {} for e in entries}
    return [
        generic.Line(
            line.seq,
            describe(by_seq.get(line.seq, {}), names, sides),
            line.dice,
            line.secret,
            line.undone,
        )
        for line in lines
    ]


# -- the page's context -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """What the body draws and sends: the seat shown, the mode, its counters and forms."""

    mode: str  # "play" (a seat's board) or "hand_off" (nothing of either seat's secrets)
    me: str  # the seat shown ("A" or "B")
    hot: bool
    act_url: str
    view: Mapping[str, Any]
    picture: Any
    counters: list[Counter]
    forms: list[ActionForm]
    orders: OrderForm | None
    next_name: str = ""  # hand-off: who takes the device
    # hot seat, an Action card out of turn (rulings 138): on the hand-off screen, the next
    # board is that player's cards turn; on the board, the other player who may play a card
    # now (seat, name), or the cards turn's player to hand the device back to (seat, name)
    cards: bool = False
    card_offer: tuple[str, str] | None = None
    back_to: tuple[str, str] | None = None

    @property
    def on_board(self) -> list[Counter]:
        return [c for c in self.counters if c.x >= 0 and not c.destroyed and not c.wreck]

    @property
    def wrecks(self) -> list[Counter]:
        """The wrecks lying on the battlefield (terrain, not units)."""
        return [c for c in self.counters if c.wreck and c.x >= 0]

    @property
    def tray(self) -> list[Counter]:
        """The seat's own counters not on the board yet (tapped to deploy them)."""
        return [c for c in self.counters if c.mine and c.x < 0 and not c.destroyed and not c.aboard]

    @property
    def aboard(self) -> list[tuple[Counter, str]]:
        """The seat's own counters in a transport, with its name (tapped to get out)."""
        names = {c.id: c.name for c in self.counters}
        return [
            (c, names.get(c.aboard, c.aboard))
            for c in self.counters
            if c.mine and c.aboard and not c.destroyed
        ]

    @property
    def groups(self) -> list[tuple[str, str, str, list[ActionForm]]]:
        """The forms of each unit (its id, name, slug), then those of no unit (id "")."""
        names = {c.id: c.name for c in self.counters}
        out: dict[str, list[ActionForm]] = {}
        for f in self.forms:
            out.setdefault(f.unit, []).append(f)
        rows = [(u, names.get(u, u), _slug(u), fs) for u, fs in out.items() if u]
        return [*rows, ("", "", "", out[""])] if "" in out else rows

    @property
    def taps(self) -> str:
        """For the script: per unit, the forms a tap on a square or a counter sends."""
        out: dict[str, dict[str, Any]] = {}
        for f in self.forms:
            if not f.unit:
                continue
            entry = out.setdefault(f.unit, {"squares": {}, "targets": {}})
            if f.kind == "deploy":
                for key, _label in f.squares:
                    entry["squares"][key] = {"form": f"form-{f.slug}", "value": key}
            elif f.kind in ("move", "reserve_move", "scout_move"):
                for key, path, _label in f.paths:
                    entry["squares"].setdefault(key, {"form": f"form-{f.slug}", "value": path})
            elif f.kind == "choose_square":  # the owner's square: a tap on it (rulings 142)
                key = f"{f.command.get('x')},{f.command.get('y')}"
                entry["squares"][key] = {"form": f"form-{f.slug}", "value": key}
            elif f.kind in ("shoot", "assault", "snipe", "overwatch", "embark", "manifest"):
                if f.target:
                    entry["targets"].setdefault(f.target, []).append(f"form-{f.slug}")
            elif f.kind == "vehicle_fire":
                for w in f.weapons:
                    for c in w.choices:
                        ids = entry["targets"].setdefault(c.target, [])
                        if f"form-{f.slug}" not in ids:
                            ids.append(f"form-{f.slug}")
            elif f.kind in ("double_shot", "burst", "flame", "kombi"):
                for aim in f.aims:  # a Kombi Weapon's flames name theirs (its Tir Direct none)
                    entry["targets"].setdefault(aim.target, []).append(f"form-{f.slug}")
        return json.dumps(out, separators=(",", ":"))


def _names(view: Mapping[str, Any], state: Any = None) -> dict[str, str]:
    """The units' names, and the psychic powers' (by option id) with the battle's state."""
    out = {str(u["id"]): str(u.get("name") or u["id"]) for u in view.get("units", ())}
    scenario = getattr(state, "scenario", None)
    if scenario is not None:
        for oid, option in scenario.catalogue.options.items():
            if getattr(option, "power", None) is not None or getattr(option, "equipment", None):
                out.setdefault(str(oid), str(option.name))  # a power, a grenade
    for card in getattr(getattr(state, "catalogue", None), "cards", None) or ():
        out.setdefault(f"card:{card.id}", str(card.name))  # the timeline's draws
    return out


def _board(
    page: PageInput,
    seat: str,
    *,
    hot: bool,
    known: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> tuple[Board, Sequence[Mapping[str, Any]]]:
    game = page.game
    if hot:
        actions = (known or {}).get(seat)
        if actions is None:
            actions = game.legal_actions(seat)
        view, log = game.view(seat), game.log_json(seat)
    else:
        view, actions, log = page.view, page.actions, page.log
    state = getattr(game, "state", None)
    you = view.get("you")
    extras = extras_of(state, str(you)) if state is not None and you else {}
    forms, orders = action_forms(actions, _names(view, state), extras, state, view)
    url = f"/matches/{page.match.id}/" + ("hot-seat-act" if hot else "act")
    board = Board("play", seat, hot, url, view, picture_of(game), counters(view), forms, orders)
    return board, log


def _hand_off(
    page: PageInput, seat: str, *, card_turn: bool = False
) -> tuple[Board, Sequence[Mapping[str, Any]]]:
    """The screen between two players on one device: the public view (no seat's tokens) for
    the header only, and the public log. ``card_turn``: the device goes to ``seat`` for an
    Action card out of turn (rulings 138)."""
    game = page.game
    view = game.view(None)
    name = page.names.get(seat) or seat
    url = f"/matches/{page.match.id}/hot-seat-act"
    board = Board(
        "hand_off", seat, True, url, view, None, [], [], None, next_name=name, cards=card_turn
    )
    return board, game.log_json(None)


def _other(seat: str) -> str:
    return SEATS[1] if seat == SEATS[0] else SEATS[0]


def _card_offer(
    page: PageInput, board: Board, known: dict[str, Sequence[Mapping[str, Any]]]
) -> Board:
    """On a hot-seat board, the other player's Action cards (rulings 138): when they may
    play one now (a defender's assault bonus before the attacker's assault, a Battle Event),
    a button hands them the device first."""
    other = _other(board.me)
    actions = known.get(other)
    if actions is None:
        actions = known[other] = page.game.legal_actions(other)
    if not any((a.get("command") or {}).get("type") == "play_card" for a in actions):
        return board
    return replace(board, card_offer=(other, page.names.get(other) or other))


@dataclass(frozen=True, slots=True)
class ContentSource:
    """The content set a match plays (frozen at its creation), as its header names it."""

    name: str
    scenario: str


def content_source(match: Match) -> ContentSource | None:
    """The set a match was created on (``None``: the shipped sample)."""
    army = match.army_a or {}
    about = army.get("content")
    if not isinstance(about, Mapping):
        return None
    scenario = about.get("scenario") if isinstance(about.get("scenario"), Mapping) else {}
    assert isinstance(scenario, Mapping)
    return ContentSource(
        str(about.get("name") or ""), str(scenario.get("name") or army.get("scenario") or "")
    )


def context(page: PageInput) -> dict[str, Any]:
    """The Black Reach part of the match page."""
    offer = _offers_hot_seat(page.match) and page.seat == "A"
    source = content_source(page.match)
    if page.game is None:
        return {"br": None, "br_hot_offer": offer, "br_content": source}
    hot = page.seat == "A" and hot_seat(page.match)
    if hot:
        known = {page.seat: page.actions}  # the legal actions are the costly part (moves)
        waiting = to_play(page.game, known)
        holder = page.extra.get("holder")
        passed = page.extra.get("pass_to")  # the device handed over on purpose (rulings 138)
        card_turn = bool(page.extra.get("cards"))
        if passed in SEATS:
            board, log = _hand_off(page, str(passed), card_turn=card_turn)
        elif card_turn and holder in SEATS and holder != waiting and waiting is not None:
            # the other player's cards turn: their own board (their hand, their tokens), to
            # play a card out of turn, then the device goes back
            board, log = _board(page, str(holder), hot=True, known=known)
            back = (waiting, page.names.get(waiting) or waiting)
            board = replace(board, back_to=back)
        elif waiting is None or waiting in (holder, _last_actor(page.game)):
            shown = waiting or str(holder or "A")
            board, log = _board(page, shown, hot=True, known=known)
            if waiting is not None and page.game.status().stage != "ended":
                board = _card_offer(page, board, known)
        else:
            board, log = _hand_off(page, waiting)
    else:
        board, log = _board(page, page.seat, hot=False)
    names = _names(board.view, getattr(page.game, "state", None))
    seats = board.view.get("seats") or {}
    sides = {side: f"{page.names.get(seat) or seat} ({side})" for seat, side in seats.items()}
    return {
        "br": board,
        "br_notice": rerolls.notice(board.view, names, sides),  # a roll waiting for a reroll
        "br_hot_offer": False,
        "br_content": source,
        "br_words": _Words(),
        "timeline": timeline(log, names, page.names, board.view.get("seats") or {}),
        "facings": FACINGS,
        "br_names": names,  # units and powers (a power marker on a unit card)
    }


@dataclass(frozen=True, slots=True)
class _Words:
    def phase(self, key: object) -> str:
        return tr(PHASES, key)

    def stage(self, key: object) -> str:
        return tr(STAGES, key)

    def face(self, key: object) -> str:
        return tr(FACES, key)

    def bonus(self, bonus: object, value: object) -> str:
        return cards.bonus_label(bonus, value)


# -- the hot-seat forms -------------------------------------------------------------------------


def _not_hot(post: PagePost) -> Response:
    from app.matches.exceptions import MatchNotFound

    return post.error(MatchNotFound())


def start_hot_seat(post: PagePost) -> Response:
    """The creator takes seat B too: the battle starts on this device (its invitation code
    and guest link stop working)."""
    from app.core.errors import AppError

    if post.seat != "A" or not _offers_hot_seat(post.match):
        return _not_hot(post)
    name = str(post.form.get("name") or "").strip()[:60] or _("Second player")
    try:
        with post.db.begin_nested():
            hot_seat_rules.start(post.db, post.match, post.seat, name)
    except AppError as exc:
        return post.error(exc)
    return post.page()


def hot_seat_act(post: PagePost) -> Response:
    """A command of either seat, sent by the creator of a hot-seat match."""
    from app.matches.exceptions import CommandRefused
    from app.matches.web import parse_dice

    if post.seat != "A" or not hot_seat(post.match):
        return _not_hot(post)
    seat = str(post.form.get("as_seat") or "")
    if seat not in SEATS:
        return _not_hot(post)
    raw = post.form.get("command")
    try:
        cmd = json.loads(raw) if isinstance(raw, str) and len(raw) < 20_000 else None
    except (ValueError, RecursionError):
        cmd = None
    command = build_command(post.form, cmd if isinstance(cmd, dict) else {"type": ""})
    try:
        with post.db.begin_nested():
            hot_seat_rules.act(
                post.db,
                post.match,
                post.seat,
                seat,
                command,
                expected_version=post.version,
                dice=parse_dice(post.form.get("dice")),
            )
    except CommandRefused as exc:
        return post.refused(exc)
    return post.page(holder=seat)


def hand_off(post: PagePost) -> Response:
    """'I am <name>': the next player took the device; their board is shown."""
    if post.seat != "A" or not hot_seat(post.match):
        return _not_hot(post)
    seat = str(post.form.get("seat") or "")
    if seat not in SEATS:
        return _not_hot(post)
    # ``resolution``: the shared page renders this answer instead of redirecting to a page
    # that would ask again (a browser without JS); ``cards``: the other player's cards turn
    card_turn = post.form.get("cards") == "1"
    return post.page(holder=seat, cards=card_turn, resolution=HAND_OFF)


def pass_device(post: PagePost) -> Response:
    """'Let <name> play an Action card first' (``cards=1``) or 'Done: hand the device back':
    the hand-off screen for ``seat``, whoever the battle waits on (rulings 138)."""
    if post.seat != "A" or not hot_seat(post.match):
        return _not_hot(post)
    seat = str(post.form.get("seat") or "")
    if seat not in SEATS:
        return _not_hot(post)
    card_turn = post.form.get("cards") == "1"
    return post.page(pass_to=seat, cards=card_turn, resolution=HAND_OFF)


# -- the new-match form -------------------------------------------------------------------------


PLAY_LABELS = {
    "": lazy("On two devices: invite your opponent"),
    "1": lazy("Hot seat: both players on this device"),
}


def new_match_fields(mission: Mission) -> list[OptionField]:
    """The side, the deployment (as the generic page asks them; a content set's scenario has
    no sample deployment: the players deploy) and where it is played."""
    asked = black_reach_fields(mission)
    if content.is_content(mission):
        asked = [
            replace(f, choices=[c for c in f.choices if c.value != "sample"])
            if f.name == "deployment"
            else f
            for f in asked
        ]
    return [
        *asked,
        OptionField(
            name="hot_seat",
            label=_("Where you play"),
            choices=[Choice(k, _(v)) for k, v in PLAY_LABELS.items()],
            default="",
            help=_("On one device, a hand-off screen hides each player's tokens from the other."),
        ),
    ]


def sentence(
    ev: Mapping[str, Any], names: Mapping[str, str], players: Mapping[str, str]
) -> str | None:
    """The page's ``sentence`` hook (the spectators' timeline): a Black Reach event in the
    words of :func:`describe`, a side named by its player (``players`` holds, besides the
    seats, each side's ``"<name> (<side>)"`` under its id when the spectators' page knows the
    seats' sides; else the side's id); ``None`` for an event that is not one of the battle's
    (an undo's: the generic words)."""
    kind = str(ev.get("type") or ev.get("event") or "")
    if kind not in _KINDS:
        return None
    return describe(ev, names, {k: v for k, v in players.items() if k not in SEATS})


# the battle's events but the undo's, which the generic words tell with the players' names
_KINDS = frozenset(EVENT_CODEC.kinds) - {"undone", "undo_requested", "undo_refused"}


PAGE = PageSystem(
    id=SYSTEM_ID,
    label=lazy("Heroes of Black Reach — the board game"),
    fragments="matches/black_reach",
    context=context,
    waiting_on=waiting_on,
    build_command=build_command,
    posts={
        "hot-seat": start_hot_seat,
        "hot-seat-act": hot_seat_act,
        "hand-off": hand_off,
        "pass-device": pass_device,
    },
    new_match_fields={SYSTEM_ID: new_match_fields},
    sentence=sentence,
)
