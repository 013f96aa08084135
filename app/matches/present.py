"""What every match page shows whatever its rule system: labels of the match row, the
mission's name, a seat's name. A system's own words (phases, units, the timeline) are in its
page module (``app/matches/pages/<system>``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.core.i18n import current_locale, lazy, ngettext
from app.core.i18n import gettext as _
from app.matches import systems

RESULTS = {
    "pending": lazy("to confirm"),
    "confirmed": lazy("confirmed"),
    "disputed": lazy("disputed"),
}

# Why a confirmed result did not reach its league game, by the league's problem code (what
# ``matches.league_report_error`` stores).
LEAGUE_REPORT_REASONS = {
    "league-game-not-found": lazy("The league game no longer exists."),
    "game-state-conflict": lazy("The league game already has a confirmed result."),
    "invalid-result": lazy("The league game's players are not this match's players."),
}


def tr(table: Mapping[str, str], key: object) -> str:
    """The translated label of ``key`` in one of the tables (the key itself if absent)."""
    text = str(key)
    return _(table.get(text, text))


def localized(names: Mapping[str, str] | None, fallback: str) -> str:
    """A name given in several languages (``{"en": ..., "fr": ...}``), in the reader's."""
    names = names or {}
    return names.get(current_locale.get()) or names.get("en") or fallback


def mission_label(
    mission_id: str,
    battle_size: str,
    ruleset: str = systems.DEFAULT_RULESET,
    snapshot: Mapping[str, Any] | Callable[[], Mapping[str, Any] | None] | None = None,
) -> str:
    """ "Only War, Strike Force (2000 points)": the mission's and battle size's names, never
    their ids. A mission the system does not list is named by its hook ``mission_name`` from
    seat A's ``snapshot`` (a Black Reach content set's scenario, as the match froze it; given
    as a function, it is read only then: a list of matches loads no snapshot it does not
    need); the ids themselves when nothing names it (a mission no longer shipped)."""
    found = systems.systems().get(ruleset)
    mission = None if found is None else found.missions().get(mission_id)
    if mission is None:
        read = snapshot if callable(snapshot) else (lambda: snapshot)
        named = None if found is None else found.mission_name(mission_id, read)
        return named or f"{mission_id} ({battle_size})"
    size = next((s for s in mission.battle_sizes if s.id == battle_size), None)
    if size is None:
        return localized(mission.name, mission_id)
    points = ngettext("%(num)d point", "%(num)d points", size.points) % {"num": size.points}
    return _("{mission}, {size} ({points})").format(
        mission=localized(mission.name, mission_id),
        size=localized(size.name, battle_size),
        points=points,
    )


def seat_a_snapshot(match: Any) -> Callable[[], Mapping[str, Any] | None]:
    """Seat A's snapshot of a match row, read when :func:`mission_label` needs it (it is a
    deferred column: a list of matches loads none it does not need)."""
    return lambda: match.army_a


def seat_label(seat: str | None, names: Mapping[str, str], me: str) -> str:
    if seat is None:
        return _("nobody")
    name = names.get(seat) or seat
    return _("{name} (you)").format(name=name) if seat == me else name
