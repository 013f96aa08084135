"""Saved profiles and recent matchups of a logged-in user (``CombatProfile`` rows).

A profile is a calculator query (the page's GET parameters) with a name. Saving an attacker or
a target keeps only that side's parameters (the rule system's form says which are which);
using it later replaces that side of the current calculation and keeps the rest. Recent
matchups are written after the response (bookkeeping, ADR 0009): a calculation edited within
:data:`EDIT_WINDOW` of the newest one replaces it, so that typing a number is one matchup,
not one per key. Every count and size is bounded; another user's profile does not exist.
Services never commit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import parse_qsl, urlencode

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.combat.exceptions import ProfileLimitReached, ProfileNotFound
from app.combat.forms import CalculatorForm
from app.combat.models import CombatProfile, ProfileKind
from app.combat.rulesets import spec_for
from app.core.db import as_aware, defer_write, utcnow
from app.core.errors import InvalidInput
from app.core.i18n import gettext as _

__all__ = [
    "EDIT_WINDOW",
    "MAX_NAME",
    "MAX_QUERY",
    "MAX_RECENT",
    "MAX_SAVED",
    "Canonical",
    "apply",
    "canonical",
    "count_saved",
    "delete_profile",
    "form_for",
    "get",
    "recent",
    "record_recent",
    "remember",
    "replace_part",
    "save",
    "saved",
]

MAX_SAVED = 50  # named profiles per user (attackers, targets and matchups together)
MAX_RECENT = 10  # recent matchups kept per user
MAX_NAME = 80  # characters of a profile's name
MAX_QUERY = 8000  # characters of a stored query (the calculator's own bound)
MAX_PARAMS = 300
EDIT_WINDOW = timedelta(seconds=60)
SAVED_KINDS = (ProfileKind.ATTACKER, ProfileKind.TARGET, ProfileKind.MATCHUP)
# kept out of a stored query: comparisons, edits and one-off actions of the page
TRANSIENT = frozenset({"vs", "pin", "unpin", "use", "unit", "as", "seed", "add", "remove"})


@dataclass(frozen=True, slots=True)
class Canonical:
    """A query as stored: its rule system and the canonical query string of the part kept."""

    ruleset: str
    query: str
    pairs: list[tuple[str, str]]


def form_for(system_id: str) -> CalculatorForm | None:
    spec = spec_for(system_id)
    return None if spec is None else spec.form


def _pairs(query: str) -> list[tuple[str, str]]:
    text = query.strip()
    if "?" in text:
        text = text.split("?", 1)[1]
    text = text.split("#", 1)[0]
    if len(text) > MAX_QUERY or "\x00" in text:
        raise InvalidInput(_("The calculation is too long to keep."))
    pairs = parse_qsl(text, keep_blank_values=True)
    if len(pairs) > MAX_PARAMS:
        raise InvalidInput(_("The calculation is too long to keep."))
    return [(k, v) for k, v in pairs if k not in TRANSIENT]


def canonical(query: str | Sequence[tuple[str, str]], kind: str) -> Canonical:
    """The part of a calculator query that a profile of ``kind`` keeps, in the form's
    canonical order (edits such as a preset applied). 422 for a query no form can read."""
    pairs = _pairs(query) if isinstance(query, str) else [p for p in query if p[0] not in TRANSIENT]
    system_id = dict(pairs).get("system", "")
    form = form_for(system_id)
    if form is None:
        raise InvalidInput(
            _("The calculation names no rule system the calculator offers (system=…).")
        )
    state = form.parse(pairs)
    whole = kind in (ProfileKind.MATCHUP, ProfileKind.RECENT)
    kept = [(k, v) for k, v in state.query if k == "system" or whole or form.part(k) == kind]
    text = urlencode(kept)
    if len(text) > MAX_QUERY or "\x00" in text or "%00" in text:
        raise InvalidInput(_("The calculation is too long to keep."))
    return Canonical(system_id, text, kept)


def apply(profile: CombatProfile, current: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The current calculation with the profile in its place: its side (attacker or target)
    replaced, or the whole matchup. Another rule system's profile replaces everything."""
    stored = parse_qsl(profile.query, keep_blank_values=True)
    return replace_part(profile.kind, stored, current)


def replace_part(
    kind: str, given: Sequence[tuple[str, str]], current: Sequence[tuple[str, str]]
) -> list[tuple[str, str]]:
    """``current`` with the ``kind`` side taken from ``given`` (a calculator query)."""
    system_id = dict(given).get("system", "")
    form = form_for(system_id)
    same_system = dict(current).get("system", system_id) == system_id
    if form is None or kind not in (ProfileKind.ATTACKER, ProfileKind.TARGET) or not same_system:
        return list(given)
    kept = [(k, v) for k, v in current if form.part(k) != kind and k not in TRANSIENT]
    return [*kept, *((k, v) for k, v in given if form.part(k) == kind)]


# -- reading -------------------------------------------------------------------------------


def saved(db: Session, user: User) -> list[CombatProfile]:
    return list(
        db.scalars(
            select(CombatProfile)
            .where(CombatProfile.owner_id == user.id, CombatProfile.kind.in_(SAVED_KINDS))
            .order_by(CombatProfile.name, CombatProfile.id)
        )
    )


def recent(db: Session, user: User) -> list[CombatProfile]:
    return list(
        db.scalars(
            select(CombatProfile)
            .where(CombatProfile.owner_id == user.id, CombatProfile.kind == ProfileKind.RECENT)
            .order_by(CombatProfile.updated_at.desc(), CombatProfile.id.desc())
            .limit(MAX_RECENT)
        )
    )


def count_saved(db: Session, user: User) -> int:
    count = db.scalar(
        select(func.count())
        .select_from(CombatProfile)
        .where(CombatProfile.owner_id == user.id, CombatProfile.kind.in_(SAVED_KINDS))
    )
    return int(count or 0)


def get(db: Session, user: User, profile_id: int) -> CombatProfile:
    """The user's profile, else ProfileNotFound (another user's does not exist for them)."""
    profile = db.get(CombatProfile, profile_id)
    if profile is None or profile.owner_id != user.id:
        raise ProfileNotFound(
            _("There is no saved calculation %(id)d of yours.") % {"id": profile_id}
        )
    return profile


# -- writing -------------------------------------------------------------------------------


def save(db: Session, user: User, kind: str, name: str, query: str) -> CombatProfile:
    if kind not in SAVED_KINDS:
        raise InvalidInput(_("Save an attacker, a target or a matchup."))
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise InvalidInput(_("Give the profile a name of 1 to %(n)d characters.") % {"n": MAX_NAME})
    found = canonical(query, kind)
    if count_saved(db, user) >= MAX_SAVED:
        raise ProfileLimitReached(
            _("You have %(n)d saved profiles, the most one account keeps: delete one first.")
            % {"n": MAX_SAVED}
        )
    profile = CombatProfile(
        owner_id=user.id, kind=kind, ruleset=found.ruleset, name=name, query=found.query
    )
    db.add(profile)
    db.flush()
    return profile


def delete_profile(db: Session, user: User, profile_id: int) -> None:
    db.delete(get(db, user, profile_id))
    db.flush()


def remember(
    db: Session, user_id: int, ruleset: str, name: str, query: str, now: datetime | None = None
) -> None:
    """Keep a calculation among the user's recent matchups (the newest :data:`MAX_RECENT`)."""
    now = now or utcnow()
    rows = list(
        db.scalars(
            select(CombatProfile)
            .where(CombatProfile.owner_id == user_id, CombatProfile.kind == ProfileKind.RECENT)
            .order_by(CombatProfile.updated_at.desc(), CombatProfile.id.desc())
        )
    )
    same = next((r for r in rows if r.query == query), None)
    newest = rows[0] if rows else None
    if same is not None:
        row = same
    elif newest is not None and now - as_aware(newest.updated_at) < EDIT_WINDOW:
        row = newest  # still editing the same matchup
    else:
        row = CombatProfile(owner_id=user_id, kind=ProfileKind.RECENT)
        db.add(row)
        rows.insert(0, row)
    row.ruleset, row.name, row.query = ruleset, name[:200], query
    row.updated_at = now
    rows.sort(key=lambda r: r is not row)  # the one just kept first, the others by recency
    stale = [r.id for r in rows[MAX_RECENT:] if r.id is not None]
    db.flush()
    if stale:
        db.execute(delete(CombatProfile).where(CombatProfile.id.in_(stale)))


def record_recent(user: User, ruleset: str, name: str, query: Sequence[tuple[str, str]]) -> None:
    """Remember a calculation after the response (best effort, coalesced per user)."""
    text = urlencode([(k, v) for k, v in query if k not in TRANSIENT])
    if len(text) > MAX_QUERY or "%00" in text or "\x00" in name:
        return  # nothing a database could refuse
    user_id = user.id
    write: Callable[[Session], None] = lambda s: remember(s, user_id, ruleset, name, text)  # noqa: E731
    defer_write(("combat_recent", user_id), write)
