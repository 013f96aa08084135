"""How the calculator shows results: numbers in the reader's locale, SVG bar charts, stages.

Everything here is computed from the engine's result types (Dist, Fraction...) for any rule
system; templates only lay it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from babel import Locale
from babel.numbers import format_decimal, format_percent

from app.core.i18n import gettext as _
from app.core.i18n import lazy
from app.engine.combat import (
    CombatAnalysis,
    CombatResolution,
    ModelState,
    fraction_to_str,
)
from app.engine.distributions import Dist

STAGE_LABELS: dict[str, str] = {
    "attacks": lazy("Attacks"),
    "hits": lazy("Hits"),
    "wounds": lazy("Wounds"),
    "failed_saves": lazy("Failed saves"),
    "mortal_wounds": lazy("Mortal wounds"),
    "damage": lazy("Damage"),
    "wounds_lost": lazy("Wounds lost"),
    "models_destroyed": lazy("Models destroyed"),
    "hit": lazy("Hit roll"),
    "wound": lazy("Wound roll"),
    "save": lazy("Save"),
    "saves": lazy("Saves"),
    "feel_no_pain": lazy("Feel No Pain"),
    "hazardous": lazy("Hazardous"),
    "hazardous_failures": lazy("Hazardous failures"),
}
CHART_TAIL = Fraction(1, 1000)  # bars stop where P(at least k) falls below 0.1%

# chart geometry (SVG user units = CSS pixels)
BAR = 30
GAP = 8
TOP = 22  # room for the P(at least k) labels
BOTTOM = 22  # room for the value labels
PLOT = 110
PAD = 4


def number(value: Fraction | float | int, locale: str, digits: int = 2) -> str:
    return format_decimal(float(value), format="#,##0." + "#" * digits, locale=locale)


def _percent_pattern(locale: str, decimals: bool) -> str:
    """The locale's percent pattern (``#,##0%``, ``#,##0 %``...), with one optional decimal."""
    pattern: str = Locale.parse(locale).percent_formats[None].pattern
    return pattern.replace("#,##0", "#,##0.#") if decimals else pattern


def percent(p: Fraction, locale: str) -> str:
    """A probability as a percentage, never rounding a possible event to 0% or a doubtful one
    to 100%."""
    p = Fraction(p)
    if p <= 0:
        return format_percent(0, format=_percent_pattern(locale, False), locale=locale)
    if p >= 1:
        return format_percent(1, format=_percent_pattern(locale, False), locale=locale)
    one_decimal = _percent_pattern(locale, True)
    if p < Fraction(1, 1000):
        return "<" + format_percent(0.001, format=one_decimal, locale=locale)
    if p > Fraction(999, 1000):
        return ">" + format_percent(0.999, format=one_decimal, locale=locale)
    decimals = p < Fraction(1, 10) or p > Fraction(9, 10)
    return format_percent(float(p), format=_percent_pattern(locale, decimals), locale=locale)


def stage_label(name: str, extra_labels: Mapping[str, str] | None = None) -> str:
    msgid = (extra_labels or {}).get(name) or STAGE_LABELS.get(name)
    return _(msgid) if msgid else name.replace("_", " ").capitalize()


@dataclass(frozen=True, slots=True)
class Bar:
    value: int
    p: str
    at_least: str
    x: float
    y: float
    height: float
    label_x: float


@dataclass(frozen=True, slots=True)
class Row:
    value: int
    p: str
    at_least: str
    exact: str
    at_least_exact: str


@dataclass(frozen=True, slots=True)
class Chart:
    id: str
    title: str
    unit: str  # what the values count (for the <title> of each bar)
    bars: tuple[Bar, ...]
    rows: tuple[Row, ...]
    width: int
    height: int
    baseline: float
    hidden_above: int | None  # values above this are not drawn (together under 0.1%)


def chart(dist: Dist, chart_id: str, title: str, unit: str, locale: str) -> Chart:
    """A bar per value of ``dist``: height P(= k), label P(at least k)."""
    items = dist.items()
    at_least = dict(dist.at_least_table())
    shown = [(v, q) for v, q in items if at_least[v] >= CHART_TAIL] or items[:1]
    hidden_above = shown[-1][0] if len(shown) < len(items) else None
    tallest = max((q for _v, q in shown), default=Fraction(1)) or Fraction(1)
    bars = []
    for i, (v, q) in enumerate(shown):
        h = float(q / tallest) * PLOT
        x = PAD + i * (BAR + GAP)
        bars.append(
            Bar(
                value=v,
                p=percent(q, locale),
                at_least=percent(at_least[v], locale),
                x=x,
                y=TOP + PLOT - h,
                height=h,
                label_x=x + BAR / 2,
            )
        )
    rows = tuple(
        Row(
            v,
            percent(q, locale),
            percent(at_least[v], locale),
            fraction_to_str(q),
            fraction_to_str(at_least[v]),
        )
        for v, q in items
    )
    return Chart(
        id=chart_id,
        title=title,
        unit=unit,
        bars=tuple(bars),
        rows=rows,
        width=int(PAD * 2 + len(bars) * (BAR + GAP) - GAP),
        height=TOP + PLOT + BOTTOM,
        baseline=TOP + PLOT,
        hidden_above=hidden_above,
    )


@dataclass(frozen=True, slots=True)
class Stat:
    label: str
    value: str
    exact: str


@dataclass
class AnalysisView:
    mean_damage: Stat
    mean_models: Stat
    wipe: Stat
    charts: list[Chart]
    stages: list[Stat]
    extra: list[tuple[str, Node]] = field(default_factory=list)


def analysis_view(
    analysis: CombatAnalysis, locale: str, extra_labels: Mapping[str, str] | None = None
) -> AnalysisView:
    damage, models = analysis.damage, analysis.models_destroyed
    return AnalysisView(
        mean_damage=Stat(
            _("Mean wounds lost"), number(damage.mean(), locale), fraction_to_str(damage.mean())
        ),
        mean_models=Stat(
            _("Mean models destroyed"),
            number(models.mean(), locale),
            fraction_to_str(models.mean()),
        ),
        wipe=Stat(
            _("Unit wiped out"),
            percent(analysis.wipe_probability, locale),
            fraction_to_str(analysis.wipe_probability),
        ),
        charts=[
            chart(damage, "chart-damage", _("Wounds lost"), _("wounds lost"), locale),
            chart(models, "chart-models", _("Models destroyed"), _("models destroyed"), locale),
        ],
        stages=[
            Stat(
                stage_label(name, extra_labels), number(d.mean(), locale), fraction_to_str(d.mean())
            )
            for name, d in analysis.stages.items()
        ],
        extra=[
            (stage_label(k, extra_labels), extra_node(v, locale, extra_labels))
            for k, v in analysis.extra.items()
        ],
    )


@dataclass(frozen=True, slots=True)
class DieView:
    index: int
    stage: str
    label: str
    sides: int
    value: int
    original: int | None
    face: int | None
    modifier: int
    outcome: str
    tone: str  # "good" / "bad" / "" for styling


# outcome words -> tone for the attacker, checked in order (others stay neutral)
_TONES = (
    ("no wound", "bad"),
    ("miss", "bad"),
    ("saved", "bad"),
    ("negated", "bad"),
    ("wound lost", "good"),
    ("critical", "good"),
    ("hit", "good"),
    ("wound", "good"),
)


def _tone(outcome: str) -> str:
    o = outcome.lower()
    for word, tone in _TONES:
        if word in o:
            return tone
    return ""


@dataclass
class ResolutionView:
    seed: int | None
    dice: list[DieView]
    totals: list[Stat]
    steps: list[tuple[str, str]]
    models: list[ModelState]
    wounds_lost: int
    models_destroyed: int
    models_remaining: int
    wiped: bool
    extra: list[tuple[str, Node]]


def resolution_view(
    resolution: CombatResolution, locale: str, extra_labels: Mapping[str, str] | None = None
) -> ResolutionView:
    dice = [
        DieView(
            index=d.index,
            stage=stage_label(d.stage, extra_labels) if getattr(d, "stage", "") else "",
            label=d.label,
            sides=d.sides,
            value=d.value,
            original=d.original,
            face=d.face if d.sides == 3 else None,
            modifier=d.modifier,
            outcome=d.outcome,
            tone=_tone(d.outcome),
        )
        for d in resolution.dice
    ]
    after = resolution.target_after
    return ResolutionView(
        seed=resolution.seed,
        dice=dice,
        totals=[
            Stat(stage_label(k, extra_labels), number(v, locale), str(v))
            for k, v in resolution.totals.items()
        ],
        steps=[(stage_label(s.stage, extra_labels), s.text) for s in resolution.steps],
        models=list(after.models),
        wounds_lost=after.wounds_lost,
        models_destroyed=after.models_destroyed,
        models_remaining=after.models_remaining,
        wiped=after.wiped,
        extra=[
            (stage_label(k, extra_labels), extra_node(v, locale, extra_labels))
            for k, v in resolution.extra.items()
        ],
    )


@dataclass(frozen=True, slots=True)
class Node:
    """One value of an ``extra`` section, ready for the template: ``kind`` is ``"text"``,
    ``"dist"`` (``rows`` and ``text`` = mean), ``"map"`` or ``"list"`` (``items``)."""

    kind: str
    text: str = ""
    exact: str = ""
    rows: tuple[Row, ...] = ()
    items: tuple[tuple[str, Node], ...] = ()


def extra_node(value: Any, locale: str, extra_labels: Mapping[str, str] | None = None) -> Node:
    """Any ``extra`` value of a result (see ``app.engine.combat.ExtraValue``) as a Node.

    A fraction between 0 and 1 is shown as a percentage (they are probabilities in practice),
    always with its exact value next to it."""
    if isinstance(value, Dist):
        at_least = dict(value.at_least_table())
        return Node(
            "dist",
            text=number(value.mean(), locale),
            exact=fraction_to_str(value.mean()),
            rows=tuple(
                Row(
                    v,
                    percent(q, locale),
                    percent(at_least[v], locale),
                    fraction_to_str(q),
                    fraction_to_str(at_least[v]),
                )
                for v, q in value.items()
            ),
        )
    if isinstance(value, bool):
        return Node("text", text=_("yes") if value else _("no"))
    if isinstance(value, Fraction):
        shown = percent(value, locale) if 0 <= value <= 1 else number(value, locale)
        return Node("text", text=shown, exact=fraction_to_str(value))
    if isinstance(value, int | float):
        return Node("text", text=number(value, locale))
    if value is None:
        return Node("text", text="—")
    if isinstance(value, str):
        return Node("text", text=value)
    if isinstance(value, Mapping):
        return Node(
            "map",
            items=tuple(
                (stage_label(str(k), extra_labels), extra_node(v, locale, extra_labels))
                for k, v in value.items()
            ),
        )
    if isinstance(value, list | tuple):
        return Node(
            "list",
            items=tuple(
                (str(i + 1), extra_node(v, locale, extra_labels)) for i, v in enumerate(value)
            ),
        )
    return Node("text", text=str(value))
