"""The match pages of each rule system (issue 13, ADR 0013): what the shared match page
(``app/matches/web.py``, ``templates/matches/match.html``) asks a system to show.

One :class:`PageSystem` per rule-system id, built by its own module (``pages/wh40k10e``,
``pages/pen``) like ``app/matches/systems/``: the template fragments it brings (included by
name from ``match.html``), its part of the page's context, what the game waits on from a seat,
how a posted form becomes one of its commands, the question asked before a command that
cannot be taken back, and its own posted forms (``/matches/{id}/{name}``). The shared page
never asks ``if ruleset == ...`` and never imports an engine package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import Request, Response
    from sqlalchemy.orm import Session
    from starlette.datastructures import FormData

    from app.core.errors import AppError
    from app.engine.match import Mission
    from app.matches.exceptions import CommandRefused
    from app.matches.models import Match

__all__ = [
    "Choice",
    "Confirmation",
    "EventSentence",
    "OptionField",
    "PageInput",
    "PagePost",
    "PageSystem",
    "ReadyList",
    "generic_page",
    "new_match_fields",
    "page_for",
    "page_system",
    "page_systems",
    "ready_lists",
    "system_label",
]


@dataclass(frozen=True, slots=True)
class Confirmation:
    """What cannot be taken back, asked before it is sent: the question, and the command the
    confirm button posts (``confirmed=1`` with it)."""

    kind: str  # concede, end_phase
    title: str
    text: str
    button: str
    command: dict[str, Any]
    units: list[str] = field(default_factory=list)  # the units that would not act

    @property
    def command_json(self) -> str:
        import json

        return json.dumps(self.command, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class PageInput:
    """What a system's page part is built from: the match, the seat, its game (a
    :class:`~app.engine.match.game.MatchGame`), that seat's view and legal actions, its log,
    the players' names, and what the request brought (odds, a resolution...)."""

    db: Session
    match: Match
    seat: str
    game: Any
    view: Mapping[str, Any]
    actions: Sequence[Mapping[str, Any]]
    log: Sequence[Mapping[str, Any]]
    names: Mapping[str, str]
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PagePost:
    """A system's own posted form, handed what the shared page knows: the request, the match
    and seat, the form, and the shared answers (the page again, a refusal, an error)."""

    request: Request
    db: Session
    match: Match
    seat: str
    form: FormData
    version: int
    page: Callable[..., Response]  # page(**context extras) -> the state block
    refused: Callable[[CommandRefused], Response]  # a refused command (409 stale: a notice)
    error: Callable[[AppError], Response]  # any other refusal, the write rolled back


@dataclass(frozen=True, slots=True)
class ReadyList:
    id: int
    name: str
    faction: str
    rule_system: str


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    label: str  # translated when shown


@dataclass(frozen=True, slots=True)
class OptionField:
    """One option of a new match the new-match form asks for (a select named
    ``option.<name>``); what it posts becomes ``options[name]`` of ``service.create``, checked
    by the system's ``parse_options`` (a bad value is its 422, shown at the field)."""

    name: str
    label: str  # translated when shown
    choices: Sequence[Choice]
    default: str = ""
    help: str = ""  # a short note under the field (translated), or nothing


OptionFields = Callable[["Mission"], Sequence[OptionField]]
"""The options a new match of a system asks for, given the mission chosen on the form."""

EventSentence = Callable[[Mapping[str, Any], Mapping[str, str], Mapping[str, str]], str | None]
"""An event of the log as a sentence, given the units' and the players' names (``None``: an
event the system does not know)."""


@dataclass(frozen=True, slots=True)
class PageSystem:
    """A rule system's page hooks (see the module docstring).

    - ``fragments``: the template folder of its fragments (``header.html``, ``body.html``);
    - ``label``: the system's name (a msgid) in the new-match form;
    - ``context(PageInput)``: its part of the template context (everything its fragments use);
    - ``waiting_on(view, actions)``: what the game waits on from this seat (``None``: nothing);
    - ``build_command(form, command)``: the command a generic action form posts, completed
      with the inputs the player filled in;
    - ``confirmation(PageInput, command)``: the question to ask before ``command``;
    - ``posts``: its own forms, ``/matches/{id}/{name}`` -> handler;
    - ``accepts(game)``: whether this page shows that game (e.g. the PEN page shows the PEN
      battle, not its Dynamics turn): a game it does not accept gets the generic page;
    - ``new_match_fields``: rule-system id -> the options the new-match form asks for a match
      of that system (the system's own page names its own; the generic page those of the
      systems it shows, e.g. Black Reach's side and deployment). Whether a seat picks an army
      list is the system's (``MatchSystem.own_force``), not the page's;
    - ``sentence(event, names, players)``: an event of the system's own log as a sentence
      (``None``: not one it knows; ``""``: bookkeeping a timeline leaves out); ``players``: the
      players' names by seat, and on the spectators' page by side too when the view says
      each seat's side (``seats``, ``spectate.timeline``). The generic page
      asks it when it shows a game this page does not accept (the PEN battle's shots and moves
      in a Dynamics match), the spectators' page for every match: the log of a system reads in
      the system's own words wherever it is shown.
    """

    id: str
    label: str
    fragments: str
    context: Callable[[PageInput], dict[str, Any]]
    waiting_on: Callable[[Mapping[str, Any] | None, Sequence[Mapping[str, Any]]], str | None]
    build_command: Callable[[FormData, dict[str, Any]], dict[str, Any]]
    confirmation: Callable[[PageInput, Mapping[str, Any]], Confirmation | None] = field(
        default=lambda page, command: None
    )
    posts: Mapping[str, Callable[[PagePost], Response]] = field(default_factory=dict)
    accepts: Callable[[Any], bool] = field(default=lambda game: True)
    new_match_fields: Mapping[str, OptionFields] = field(default_factory=dict)
    sentence: EventSentence = field(default=lambda event, names, players: None)


def _build() -> dict[str, PageSystem]:
    from app.matches.pages.black_reach import PAGE as BLACK_REACH_PAGE
    from app.matches.pages.pen import PAGE as PEN_PAGE
    from app.matches.pages.wh40k10e import PAGE as TENTH_PAGE

    entries = (TENTH_PAGE, PEN_PAGE, BLACK_REACH_PAGE)
    return {e.id: e for e in entries}


_PAGES: dict[str, PageSystem] | None = None


def page_systems() -> dict[str, PageSystem]:
    """The page of every rule system that can be played as a match, by id."""
    global _PAGES
    if _PAGES is None:
        _PAGES = _build()
    return _PAGES


def page_system(ruleset: str) -> PageSystem:
    """The page of ``ruleset`` (a ``KeyError`` for a system without its own page: the match
    screen asks :func:`page_for`, which falls back on the generic page)."""
    return page_systems()[ruleset]


def generic_page() -> PageSystem:
    """The page of a system (or a turn structure) without its own: ``pages/generic``."""
    from app.matches.pages.generic import PAGE

    return PAGE


def page_for(ruleset: str, game: Any = None) -> PageSystem:
    """The page that shows ``game`` of ``ruleset``: the system's own page when it has one
    that accepts the game (``None``: no game yet, before seat B joins), else the generic
    page, so that every playable match has a page."""
    own = page_systems().get(ruleset)
    if own is not None and (game is None or own.accepts(game)):
        return own
    return generic_page()


def new_match_fields(ruleset: str, mission: Mission) -> Sequence[OptionField]:
    """The options the new-match form asks for a match of ``ruleset`` on ``mission``: those
    its own page names, else those the generic page names for it (none: no option)."""
    page = page_systems().get(ruleset) or generic_page()
    fields = page.new_match_fields.get(ruleset)
    return fields(mission) if fields is not None else ()


def system_label(ruleset: str) -> str:
    """The name of a rule system, translated: its page's, else the engine registry's (a
    system shown on the generic page), else its id."""
    from app.core.i18n import gettext
    from app.engine import registry

    own = page_systems().get(ruleset)
    if own is not None:
        return gettext(own.label)
    try:
        return gettext(registry.get(ruleset).name)
    except LookupError:  # UnknownRuleSystem
        return ruleset


def ready_lists(db: Session, user: Any) -> list[ReadyList]:
    """The user's lists marked ready of every system with a page (the new-match and join
    forms offer those of the match's system)."""
    from sqlalchemy import select

    from app.armies.models import Army, ArmyStatus

    rows = db.execute(
        select(Army.id, Army.name, Army.faction, Army.rule_system)
        .where(
            Army.owner_id == user.id,
            Army.status == ArmyStatus.READY,
            Army.rule_system.in_(list(page_systems())),
        )
        .order_by(Army.name, Army.id)
    ).all()
    return [ReadyList(r[0], r[1], r[2] or "", r[3]) for r in rows]
