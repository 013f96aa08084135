"""The calculator's forms: one :class:`CalculatorForm` per rule system, chosen by id.

A form turns the page's query parameters (a GET form, so every calculation is a shareable URL)
into the JSON-like request of its rule system, and maps the request's field paths back to its
own inputs so that every error shows next to the field it names. Its template is
``templates/combat/forms/<system-id>.html``. The shared page (``app.combat.web``) only calls
:meth:`CalculatorForm.parse` and :meth:`CalculatorForm.field_for`.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from app.core.config import ROOT
from app.core.i18n import gettext as _

__all__ = [
    "CalculatorForm",
    "FieldError",
    "FormState",
    "load_presets",
    "parse_int",
    "parse_list",
    "parse_roll_value",
]

PRESETS_DIR = ROOT / "data" / "profiles"
MINUS_SIGNS = ("\u2212", "\u2013", "\u2014")  # −, –, — typed or pasted for "minus"


class FieldError(ValueError):
    """One form input that cannot be read (the message is translated)."""


@dataclass
class FormState:
    """A calculator form as read from the query: what to show, what to send, what is wrong."""

    system_id: str
    values: dict[str, str] = field(default_factory=dict)
    request: dict[str, Any] | None = None
    errors: dict[str, list[str]] = field(default_factory=dict)
    general: list[str] = field(default_factory=list)
    redirect: list[tuple[str, str]] | None = None
    query: list[tuple[str, str]] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    slots: list[str] = field(default_factory=list)

    def add_error(self, name: str | None, message: str) -> None:
        if name is None:
            if message not in self.general:
                self.general.append(message)
            return
        messages = self.errors.setdefault(name, [])
        if message not in messages:
            messages.append(message)

    @property
    def has_errors(self) -> bool:
        return bool(self.errors or self.general)

    def value(self, name: str, default: str = "") -> str:
        return self.values.get(name, default)

    def checked(self, name: str) -> bool:
        return self.values.get(name, "") not in ("", "0", "off", "false")


class CalculatorForm(ABC):
    """The calculator form of one rule system."""

    system_id: str
    label: str  # a msgid: the system's tab on the page
    presets_file: str = ""
    # stage name -> msgid, (context, msgid) or label function, beyond the shared ones
    stage_labels: Mapping[str, Any] = {}
    # which query parameters describe the attacker and which the target (a saved attacker or
    # target, or a unit put in one of the two places, replaces only those)
    takes_units = False  # the calculator can fill it from a unit of an army list or a catalogue
    attacker_keys: re.Pattern[str] = re.compile(r"^$")
    target_keys: re.Pattern[str] = re.compile(r"^$")

    @property
    def template(self) -> str:
        return f"combat/forms/{self.system_id}.html"

    @abstractmethod
    def parse(self, params: Sequence[tuple[str, str]]) -> FormState:
        """Read the query: values, the request (when readable), errors, and the canonical
        query to redirect to when the query asked for an edit (add/remove a row, a preset)."""

    @abstractmethod
    def field_for(self, path: Sequence[str]) -> str | None:
        """The form input for a request field path (``["attacks", "0", "weapon", "skill"]``),
        or None for an error about the whole request."""

    def part(self, key: str) -> str | None:
        """``"attacker"`` or ``"target"`` for a query parameter of that side, else None (the
        system, the situation, edits)."""
        if self.attacker_keys.match(key):
            return "attacker"
        if self.target_keys.match(key):
            return "target"
        return None

    def result_kind(self, state: FormState) -> str:
        """What the results count: ``"models"`` (wounds lost, models destroyed) or
        ``"vehicle"`` (hull points lost, the vehicle destroyed)."""
        return "models"

    def result_notes(self, extra: Mapping[str, Any], state: FormState) -> list[str]:
        """Short lines shown beside the odds (e.g. why the skill used is not the one typed),
        in the current locale, from the analysis' ``extra`` sections. Default: none."""
        return []

    def describe(self, state: FormState) -> str:
        """A short name of the attack (a comparison's legend); empty: the page numbers it."""
        return ""

    def group_names(self, state: FormState) -> Mapping[str, str]:
        """The target's groups as the player named them, by the engine's group id."""
        return {}

    def words(self, text: str, state: FormState) -> str:
        """A step text or die label of the engine's live roll in the current locale (the
        engine writes English): the system knows the shapes it writes. Unknown: unchanged."""
        return text

    def values(self, text: str, state: FormState) -> str:
        """A text value of the engine's ``extra`` sections (a note, a mode, a winner) in the
        current locale. Default: unchanged (names the player typed)."""
        return text

    def presets(self) -> Mapping[str, Any]:
        return load_presets(self.presets_file) if self.presets_file else {}


@cache
def load_presets(filename: str) -> Mapping[str, Any]:
    """A presets file of ``data/profiles/`` (numbers and names only)."""
    with (PRESETS_DIR / filename).open(encoding="utf-8") as fp:
        data: dict[str, Any] = json.load(fp)
    return data


def _clean_number(text: str) -> str:
    t = text.strip()
    for sign in MINUS_SIGNS:
        t = t.replace(sign, "-")
    return t.replace(" ", "")


def parse_int(text: str, *, optional: bool = False, plus: bool = False) -> int | None:
    """A whole number typed in a form (``"3+"`` accepted where ``plus``; empty or ``-`` is
    None when ``optional``). Raises FieldError with a translated message."""
    t = _clean_number(text)
    if plus and t.endswith("+"):
        t = t[:-1]
    if t in ("", "-") or t.lower() in ("n/a", "na", "none"):
        if optional:
            return None
        raise FieldError(_("Required."))
    try:
        if len(t) > 6:
            raise ValueError(t)
        return int(t)
    except ValueError:
        raise FieldError(
            _("Enter a number such as 3+.") if plus else _("Enter a whole number.")
        ) from None


def parse_roll_value(text: str, *, optional: bool = False) -> int | None:
    """A roll target such as ``"3+"`` (or ``"3"``); empty or ``-`` is None when optional."""
    return parse_int(text, optional=optional, plus=True)


def parse_list(text: str) -> list[str]:
    """Comma-separated items, trimmed, empty ones dropped."""
    return [item.strip() for item in text.split(",") if item.strip()]


def last_values(params: Iterable[tuple[str, str]]) -> dict[str, str]:
    """One value per name (the last one given)."""
    out: dict[str, str] = {}
    for key, value in params:
        out[key] = value
    return out
