"""The generic match page (``templates/matches/generic/``): the page of a rule system, or of a
turn structure, that has no page of its own (Black Reach, PEN's Dynamics turn...), so that
every playable match has a page rather than an error.

It reads only what the game renders for the seat: ``game.view(seat)``, its legal actions and
``game.log_json(seat)`` (what :class:`~app.matches.pages.PageInput` carries), never the
game's state, so a secret of the other seat (a face-down token, a hidden order) cannot reach
the page. From them it makes:

- the state as readable facts (each scalar of the view, one level of nested objects);
- the units as cards (any list of objects with an ``id`` in the view), each with its scalar
  fields;
- one form per legal action: the command's own fields as inputs filled with the values the
  game proposed, an empty input per ``needs`` entry, and what the action entry adds (the
  squares a move may end on, odds...) as a note;
- the timeline from the log entries: a sentence for the events it knows (those of PEN's
  Dynamics turn, :data:`SENTENCES`), else the kind in words with its scalar fields.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.datastructures import FormData

from app.core.i18n import gettext as _
from app.core.i18n import lazy, pgettext
from app.engine.match.seats import Seat
from app.matches import systems
from app.matches.pages import (
    Choice,
    EventSentence,
    OptionField,
    PageInput,
    PageSystem,
    page_systems,
)

if TYPE_CHECKING:
    from app.engine.match import Mission

__all__ = [
    "PAGE",
    "ActionForm",
    "Fact",
    "FieldInput",
    "UnitCard",
    "action_forms",
    "build_command",
    "context",
    "describe",
    "facts",
    "unit_cards",
    "waiting_on",
]

MAX_TEXT = 160  # a value shown on the page is cut to this many characters
MAX_FIELD = 4_000  # a field posted back (a path of squares, a list of tokens) is at most this
UNDO_KINDS = frozenset({"approve_undo", "refuse_undo"})  # the shared undo block shows those
FIELD_PREFIX = "field."
NEED_PREFIX = "need."


def words(key: object) -> str:
    """``active_seat`` -> "active seat"."""
    return str(key).replace("_", " ").replace("-", " ").strip()


def shown(value: object) -> str:
    """A value as the page shows it: scalars as they are, the rest as compact JSON."""
    if value is None:
        text = "-"
    elif isinstance(value, bool):
        text = _("yes") if value else _("no")
    elif isinstance(value, str | int | float):
        text = str(value)
    else:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _scalar(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


# -- the state ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fact:
    label: str
    value: str


def _is_units(value: object) -> bool:
    """A list of objects each naming a unit (``id``, or ``unit`` for e.g. a list of orders)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, Mapping) and ("id" in v or "unit" in v) for v in value)
    )


def _unit_lists(view: Mapping[str, Any]) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """The view's lists of units, at its top level and one level down ("dynamics orders")."""
    out: list[tuple[str, list[Mapping[str, Any]]]] = []
    for key, value in view.items():
        if _is_units(value):
            out.append((words(key), value))
        elif isinstance(value, Mapping):
            out.extend(
                (f"{words(key)} {words(sub)}", inner)
                for sub, inner in value.items()
                if _is_units(inner)
            )
    return out


def facts(view: Mapping[str, Any]) -> list[Fact]:
    """The view's scalars, and those of its nested objects ("turn: phase"); lists of units are
    shown as cards instead."""
    out: list[Fact] = []
    for key, value in view.items():
        if key in ("can_undo", "undo_needs_approval", "undo_request") or _is_units(value):
            continue
        if isinstance(value, Mapping):
            for sub, inner in value.items():
                if not _is_units(inner):
                    out.append(Fact(f"{words(key)}: {words(sub)}", shown(inner)))
        else:
            out.append(Fact(words(key), shown(value)))
    return out


@dataclass(frozen=True, slots=True)
class UnitCard:
    id: str
    name: str
    owner: str  # the seat or side it belongs to, when the view says
    fields: list[Fact]
    destroyed: bool

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9-]+", "-", self.id)[:120]


def unit_cards(view: Mapping[str, Any]) -> dict[str, list[UnitCard]]:
    """Every list of units in the view (see :func:`_unit_lists`), as cards, by its name."""
    names = _names(view)
    out: dict[str, list[UnitCard]] = {}
    for key, value in _unit_lists(view):
        cards = []
        for u in value:
            uid = str(u.get("id") or u.get("unit"))
            owner = str(u.get("seat") or u.get("side") or "")
            skip = {"id", "name", "seat", "side"} | ({"unit"} if "id" not in u else set())
            cards.append(
                UnitCard(
                    id=uid,
                    name=str(u.get("name") or names.get(uid, uid)),
                    owner=owner,
                    fields=[
                        Fact(words(k), shown(v))
                        for k, v in u.items()
                        if k not in skip and v not in (None, [], {}, False)
                    ],
                    destroyed=bool(u.get("destroyed")) or u.get("place") == "destroyed",
                )
            )
        out[key] = cards
    return out


def _names(view: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in view.values():
        if _is_units(value):
            for u in value:
                if u.get("name") and "id" in u:
                    out[str(u["id"])] = str(u["name"])
    return out


# -- the action forms ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FieldInput:
    """An input of an action form: a field of the command (filled with the proposed value) or
    a ``needs`` entry (empty)."""

    name: str  # the posted name: field.<key> or need.<key>
    label: str
    value: str


@dataclass(frozen=True, slots=True)
class ActionForm:
    kind: str
    label: str
    command: dict[str, Any]
    inputs: list[FieldInput] = field(default_factory=list)
    notes: list[Fact] = field(default_factory=list)

    @property
    def command_json(self) -> str:
        return json.dumps(self.command, separators=(",", ":"))

    @property
    def slug(self) -> str:
        unit = self.command.get("unit") or self.command.get("seat") or ""
        target = self.command.get("target") or ""
        parts = (self.kind, str(unit), str(target))
        return re.sub(r"[^A-Za-z0-9-]+", "-", "-".join(p for p in parts if p))[:120]


def _posted_value(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def action_forms(
    actions: Sequence[Mapping[str, Any]], names: Mapping[str, str]
) -> list[ActionForm]:
    """A form per legal action (the undo answers are left to the shared undo block)."""
    out: list[ActionForm] = []
    for entry in actions:
        command = dict(entry.get("command") or {})
        kind = str(command.get("type") or "")
        if not kind or kind in UNDO_KINDS:
            continue
        named = [
            names.get(str(command[k]), str(command[k]))
            for k in ("unit", "target")
            if _scalar(command.get(k)) and command.get(k) not in (None, "")
        ]
        label = words(kind).capitalize() + (": " + " → ".join(named) if named else "")
        inputs = [
            FieldInput(FIELD_PREFIX + k, words(k), _posted_value(v))
            for k, v in command.items()
            if k not in ("type", "unit", "target")
        ]
        inputs += [FieldInput(NEED_PREFIX + str(n), words(n), "") for n in entry.get("needs", ())]
        notes = [
            Fact(words(k), shown(v)) for k, v in entry.items() if k not in ("command", "needs")
        ]
        out.append(ActionForm(kind, label, command, inputs, notes))
    return out


def _parse(text: str) -> object:
    """A posted value: JSON when it reads as JSON (a number, a list, true), else the text."""
    text = text.strip()
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's stack
        return text


def build_command(form: FormData, cmd: dict[str, Any]) -> dict[str, Any]:
    """The command of a generic form: its JSON, with each field the player edited and each
    ``needs`` entry filled in (an empty need is left out; the game refuses what it lacks)."""
    for key, value in form.multi_items():
        if not isinstance(value, str) or len(value) > MAX_FIELD:
            continue
        for prefix in (FIELD_PREFIX, NEED_PREFIX):
            if key.startswith(prefix):
                name = key[len(prefix) :][:64]
                if name in ("type", "") or (prefix == NEED_PREFIX and not value.strip()):
                    continue
                cmd[name] = _parse(value)
    return cmd


def waiting_on(view: Mapping[str, Any] | None, actions: Sequence[Mapping[str, Any]]) -> str | None:
    if view is None:
        return None
    kinds = {str((a.get("command") or {}).get("type")) for a in actions}
    if "approve_undo" in kinds:
        return _("An undo to approve or refuse")
    if kinds - UNDO_KINDS - {"None"}:
        return _("Your move")
    return None


# -- the timeline -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Line:
    seq: int
    text: str
    dice: list[Mapping[str, Any]]
    secret: bool = False
    undone: bool = False


Said = Callable[[Mapping[str, Any], Callable[[object], str], Callable[[object], str]], str]


def _order(order: object) -> str:
    """A Dynamics order's name (the French names of the rule book)."""
    match str(order):
        case "tactical_move":
            return pgettext("dynamics order", "Tactical Move")
        case "forced_march":
            return pgettext("dynamics order", "Forced March")
        case "fire":
            return pgettext("dynamics order", "Fire")
        case "assault":
            return pgettext("dynamics order", "Assault")
        case "deep_strike":
            return pgettext("dynamics order", "Deep Strike")
    return words(order)


def _stage(stage: object) -> str:
    """A stage of the Dynamics common turn (or the PEN set-up step of a placing roll-off)."""
    match str(stage):
        case "setup":
            return _("the set-up")
        case "turn_start":
            return _("the start of the turn")
        case "arrivals":
            return _("the arrivals from reserve")
        case "placement":
            return _("the placing of the orders")
        case "reveal" | "reveals":
            return _("the reveals")
        case "resolve":
            return _("the resolution")
        case "reserves":
            return _("the arrivals from reserve")
        case "over":
            return _("the end of the battle")
    return words(stage)


def _advantage(
    ev: Mapping[str, Any], unit: Callable[[object], str], who: Callable[[object], str]
) -> str:
    text = _(
        "Advantage test for {stage}, Initiative {step}: {a} {total_a}, {b} {total_b}; {who} wins."
    ).format(
        stage=_stage(ev.get("context")),
        step=ev.get("step"),
        a=who("A"),
        total_a=ev.get("total_a"),
        b=who("B"),
        total_b=ev.get("total_b"),
        who=who(ev.get("winner")),
    )
    return text + (" " + _("The +1 bonus is spent.") if ev.get("bonus_spent") else "")


def _revealed(
    ev: Mapping[str, Any], unit: Callable[[object], str], who: Callable[[object], str]
) -> str:
    declaration = ev.get("declaration") if isinstance(ev.get("declaration"), Mapping) else {}
    target = (declaration or {}).get("target")
    if target:
        return _("{unit} reveals its order: {order}, at {target} (Initiative {step}).").format(
            unit=unit(ev.get("unit")),
            order=_order(ev.get("order")),
            target=unit(target),
            step=ev.get("step"),
        )
    return _("{unit} reveals its order: {order} (Initiative {step}).").format(
        unit=unit(ev.get("unit")), order=_order(ev.get("order")), step=ev.get("step")
    )


def _placing_roll_off(
    ev: Mapping[str, Any], unit: Callable[[object], str], who: Callable[[object], str]
) -> str:
    if str(ev.get("stage")) == "scout":
        return _("Roll-off for who makes the scout moves first: {who} wins.").format(
            who=who(ev.get("winner"))
        )
    return _("Roll-off for who places the infiltrators first: {who} wins.").format(
        who=who(ev.get("winner"))
    )


def _placing_first(
    ev: Mapping[str, Any], unit: Callable[[object], str], who: Callable[[object], str]
) -> str:
    if str(ev.get("stage")) == "scout":
        return _("{who} makes the scout moves first.").format(who=who(ev.get("seat")))
    return _("{who} places the infiltrators first.").format(who=who(ev.get("seat")))


def _short(value: object) -> str:
    """A commitment or a nonce cut to what a player compares by eye."""
    text = str(value or "")
    return text if len(text) <= 12 else text[:12] + "…"


SENTENCES: dict[str, Said] = {
    # PEN's Dynamics turn (app/engine/dynamics/events.py)
    "dynamics_created": lambda ev, unit, who: _("The battle is set up, with the Dynamics turn."),
    "turn_began": lambda ev, unit, who: _("Turn {turn} begins.").format(turn=ev.get("turn")),
    "turn_ended": lambda ev, unit, who: _("Turn {turn} ends.").format(turn=ev.get("turn")),
    "advantage_rolled": _advantage,
    "starter_chosen": lambda ev, unit, who: _("{who} acts first.").format(who=who(ev.get("seat"))),
    "order_committed": lambda ev, unit, who: _(
        "{who} places a face-down order on {unit} (commitment {commitment})."
    ).format(
        who=who(ev.get("seat")), unit=unit(ev.get("unit")), commitment=_short(ev.get("commitment"))
    ),
    "order_chosen": lambda ev, unit, who: _("Your order for {unit}: {order}.").format(
        unit=unit(ev.get("unit")), order=_order(ev.get("order"))
    ),
    "orders_locked": lambda ev, unit, who: _("{who} locks their orders.").format(
        who=who(ev.get("seat"))
    ),
    "order_revealed": _revealed,
    "order_postponed": lambda ev, unit, who: _("{unit} waits: its order is postponed.").format(
        unit=unit(ev.get("unit"))
    ),
    "order_ended": lambda ev, unit, who: _("{unit} has carried out its order.").format(
        unit=unit(ev.get("unit"))
    ),
    "pass_ended": lambda ev, unit, who: _(
        "End of the Initiative {step} pass: its casualties leave the table."
    ).format(step=ev.get("step")),
    "stage_entered": lambda ev, unit, who: (
        _("Now {stage}, Initiative {step}.").format(
            stage=_stage(ev.get("stage")), step=ev.get("step")
        )
        if ev.get("step")
        else _("Now {stage}.").format(stage=_stage(ev.get("stage")))
    ),
    "sweep_rolled": lambda ev, unit, who: (
        _("{unit} is caught by the sweeping advance of {assaulter}.")
        if ev.get("caught")
        else _("{unit} escapes the sweeping advance of {assaulter} and falls back.")
    ).format(unit=unit(ev.get("unit")), assaulter=unit(ev.get("assaulter"))),
    "retarget_tested": lambda ev, unit, who: (
        _("{unit} passes its Leadership test: it may shoot {target} instead.")
        if ev.get("passed")
        else _("{unit} fails its Leadership test to shoot {target} instead.")
    ).format(unit=unit(ev.get("unit")), target=unit(ev.get("target"))),
    "extreme_began": lambda ev, unit, who: _(
        "The extreme method for {units}: the move first."
    ).format(units=", ".join(unit(u) for u in ev.get("units") or ())),
    "extreme_phase_done": lambda ev, unit, who: _("{unit} is done with this phase.").format(
        unit=unit(ev.get("unit"))
    ),
    "extreme_ended": lambda ev, unit, who: _("The extreme method is over."),
    "placing_roll_off": _placing_roll_off,
    "placing_first_chosen": _placing_first,
}


def describe(
    ev: Mapping[str, Any],
    names: Mapping[str, str],
    players: Mapping[str, str],
    own: EventSentence | None = None,
) -> str:
    """An event as a sentence: that of :data:`SENTENCES` for its kind, else the one the
    match's rule system gives (``own``, its page's ``sentence``: PEN's shots and moves in a
    Dynamics match), else its kind in words then its scalar fields ("unit: Boyz")."""
    kind = str(ev.get("type") or ev.get("event") or "")
    said = SENTENCES.get(kind)
    if said is not None:
        return said(
            ev,
            lambda u: names.get(str(u), str(u)),
            lambda s: players.get(str(s)) or str(s),
        )
    told = own(ev, names, players) if own is not None else None
    if told:
        return told
    if kind == "undone":
        return _("An action is undone.")
    if kind == "undo_requested":
        seat = str(ev.get("seat") or ev.get("by") or "")
        return _("{who} asks to undo an action.").format(who=players.get(seat) or seat)
    if kind == "undo_refused":
        return _("The undo is refused: the roll stands.")
    parts = []
    for key, value in ev.items():
        if key in ("type", "roll") or not _scalar(value) or value in (None, ""):
            continue
        if key in ("seat", "by", "winner") and str(value) in players:
            value = players[str(value)] or value
        elif isinstance(value, str):
            value = names.get(value, value)
        parts.append(f"{words(key)}: {shown(value)}")
    head = words(kind).capitalize() or "?"
    return head + (" (" + ", ".join(parts) + ")" if parts else "") + "."


def timeline(
    entries: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    players: Mapping[str, str],
    *,
    limit: int = 80,
    own: EventSentence | None = None,
) -> list[Line]:
    """The latest ``limit`` entries, newest first (``own``: see :func:`describe`)."""
    undone = {
        (e.get("event") or {}).get("batch")
        for e in entries
        if (e.get("event") or {}).get("type") == "undone"
    }
    players_ = {**players, "A": players.get("A") or "A", "B": players.get("B") or "B"}
    out: list[Line] = []
    for entry in list(entries)[-limit:][::-1]:
        ev = entry.get("event") or {}
        roll = ev.get("roll") if isinstance(ev.get("roll"), Mapping) else {}
        dice = [d for d in (roll or {}).get("dice", ()) if isinstance(d, Mapping)]
        out.append(
            Line(
                int(entry.get("seq") or 0),
                describe(ev, names, players_, own),
                dice[:30],
                entry.get("audience") is not None,
                entry.get("batch") is not None and entry.get("batch") in undone,
            )
        )
    return out


def context(page: PageInput) -> dict[str, Any]:
    """The generic part of the match page: only the seat's view, actions and log."""
    if page.game is None:
        return {"present": None}
    view = page.view
    names = _names(view)
    return {
        "facts": facts(view),
        "unit_groups": unit_cards(view),
        "forms": action_forms(page.actions, names),
        "timeline": timeline(page.log, names, page.names, own=_own_sentence(page)),
    }


def _own_sentence(page: PageInput) -> EventSentence | None:
    """The match's rule system's sentences, if it has a page of its own (this page shows a
    game that page does not accept, e.g. PEN's Dynamics turn)."""
    own = page_systems().get(str(page.match.rule_system))
    return None if own is None or own.id == PAGE.id else own.sentence


BLACK_REACH = "black-reach"
DEPLOYMENT_LABELS = {
    "players": lazy("Each player deploys their counters"),
    "sample": lazy("The scenario's sample deployment: the battle starts at turn 1"),
}


def black_reach_fields(mission: Mission) -> list[OptionField]:
    """A Black Reach match's options (``systems/black_reach``): the scenario side the creator
    plays (``side``: the seats play the scenario's forces, the other seat the other side) and
    how the counters are deployed (``deployment``)."""
    entry = systems.playable(BLACK_REACH)
    assert entry.own_force is not None
    forces = [entry.own_force(mission, {}, seat) for seat in (Seat.A, Seat.B)]
    sides = [
        Choice(
            str(f["side"]),
            f"{f['name']} ({f['faction']})"
            if f.get("faction") not in (None, "", f["name"])
            else str(f["name"]),
        )
        for f in forces
    ]
    return [
        OptionField(
            name="side",
            label=_("The side you play"),
            choices=sides,
            default=sides[0].value,
            help=_("Your opponent plays the other side of the scenario."),
        ),
        OptionField(
            name="deployment",
            label=_("Deployment"),
            choices=[Choice(k, _(v)) for k, v in DEPLOYMENT_LABELS.items()],
            default="players",
        ),
    ]


PAGE = PageSystem(
    id="generic",
    label=lazy("Another rule system"),
    fragments="matches/generic",
    context=context,
    waiting_on=waiting_on,
    build_command=build_command,
    new_match_fields={BLACK_REACH: black_reach_fields},
)
