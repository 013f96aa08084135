"""The import report: what was read, and every problem met, as values the API can show.

Nothing is dropped silently: a file that cannot be read, a link that does not resolve, a weapon
ability the engine does not know (kept verbatim on the weapon), a characteristic that is not a
number... each is an :class:`ImportIssue` with a stable ``code``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from app.engine.errors import N_, Message

__all__ = ["FileSummary", "ImportIssue", "ImportReport", "IssueCode", "IssueSeverity", "Reporter"]


class IssueSeverity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class IssueCode(StrEnum):
    FILE_UNREADABLE = "file-unreadable"
    TOO_MANY_FILES = "too-many-files"
    TOO_LARGE = "too-large"  # a bound of the import was hit while reading; params name it
    DUPLICATE_FILE = "duplicate-file"
    NO_GAME_SYSTEM = "no-game-system"
    GAME_SYSTEM_MISMATCH = "game-system-mismatch"
    MISSING_CATALOGUE_LINK = "missing-catalogue-link"
    UNRESOLVED_LINK = "unresolved-link"
    LINK_CYCLE = "link-cycle"
    TOO_DEEP = "too-deep"
    UNMAPPED_ABILITY = "unmapped-ability"
    BAD_CHARACTERISTIC = "bad-characteristic"
    CONDITIONAL_INVULNERABLE = "conditional-invulnerable-save"
    LEADER_TARGET_UNKNOWN = "leader-target-unknown"
    NO_UNIT_SIZE = "no-unit-size"
    NO_PROFILE = "no-profile"
    ENHANCEMENT_DETACHMENT_UNKNOWN = "enhancement-detachment-unknown"
    NO_DETACHMENTS = "no-detachments"
    DATASHEET_SKIPPED = "datasheet-skipped"
    FACTION_ASSUMED = "faction-assumed"
    NO_CATALOGUE = "no-catalogue"


@dataclass(frozen=True, slots=True)
class ImportIssue:
    code: IssueCode
    severity: IssueSeverity
    message: str
    file: str | None = None
    entry: str | None = None
    params: Mapping[str, str | int] = field(default_factory=dict)
    # the message as a page shows it in the reader's language (``message`` is its English);
    # not in :meth:`as_dict`, the API's report
    template: Message | None = field(
        default=None, compare=False, repr=False, metadata={"presentation": True}
    )

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code.value,
            "severity": self.severity.value,
            "message": self.message,
            "file": self.file,
            "entry": self.entry,
            "params": dict(self.params),
        }


@dataclass(frozen=True, slots=True)
class FileSummary:
    filename: str
    kind: str  # "gameSystem" | "catalogue" | "library"
    id: str
    name: str
    revision: str
    bytes: int


@dataclass(frozen=True, slots=True)
class ImportReport:
    files: tuple[FileSummary, ...]
    issues: tuple[ImportIssue, ...]

    @property
    def errors(self) -> tuple[ImportIssue, ...]:
        return tuple(i for i in self.issues if i.severity is IssueSeverity.ERROR)

    @property
    def warnings(self) -> tuple[ImportIssue, ...]:
        return tuple(i for i in self.issues if i.severity is IssueSeverity.WARNING)

    def of(self, code: IssueCode) -> tuple[ImportIssue, ...]:
        return tuple(i for i in self.issues if i.code is code)

    def as_dict(self) -> dict[str, object]:
        return {
            "files": [
                {
                    "filename": f.filename,
                    "kind": f.kind,
                    "id": f.id,
                    "name": f.name,
                    "revision": f.revision,
                    "bytes": f.bytes,
                }
                for f in self.files
            ],
            "errors": [i.as_dict() for i in self.errors],
            "warnings": [i.as_dict() for i in self.warnings],
        }


MAX_EXAMPLES = 5
MAX_PER_CODE = 200  # issues listed per code; the rest are counted
MAX_GROUPED = 500  # distinct grouped keys (e.g. unmapped ability texts) listed


class Reporter:
    """Collects issues; repeated ones (the same unmapped ability on many weapons) are grouped
    into one issue that counts them and names a few examples."""

    def __init__(self) -> None:
        self._issues: list[ImportIssue] = []
        self._per_code: dict[IssueCode, int] = {}
        self._grouped: dict[tuple[IssueCode, str], tuple[int, list[str], str | None]] = {}
        self._group_order: list[tuple[IssueCode, str]] = []

    def error(self, code: IssueCode, message: str | Message, **kw: object) -> None:
        self._add(IssueSeverity.ERROR, code, message, **kw)

    def warning(self, code: IssueCode, message: str | Message, **kw: object) -> None:
        self._add(IssueSeverity.WARNING, code, message, **kw)

    def _add(
        self, severity: IssueSeverity, code: IssueCode, message: str | Message, **kw: object
    ) -> None:
        seen = self._per_code.get(code, 0) + 1
        self._per_code[code] = seen
        if seen > MAX_PER_CODE:
            return  # counted; summarised in the report
        file = kw.pop("file", None)
        entry = kw.pop("entry", None)
        params = {k: v for k, v in kw.items() if isinstance(v, str | int)}
        self._issues.append(
            ImportIssue(
                code,
                severity,
                str(message),
                file=file if isinstance(file, str) else None,
                entry=entry if isinstance(entry, str) else None,
                params=params,
                template=message if isinstance(message, Message) else None,
            )
        )

    def grouped(self, code: IssueCode, key: str, example: str, file: str | None) -> None:
        """Count one more occurrence of ``key`` (e.g. an unmapped ability's text)."""
        gk = (code, key)
        if gk not in self._grouped and len(self._group_order) >= MAX_GROUPED:
            return
        if gk not in self._grouped:
            self._grouped[gk] = (0, [], file)
            self._group_order.append(gk)
        count, examples, first_file = self._grouped[gk]
        if example not in examples and len(examples) < MAX_EXAMPLES:
            examples.append(example)
        self._grouped[gk] = (count + 1, examples, first_file)

    def report(self, files: tuple[FileSummary, ...]) -> ImportReport:
        issues = list(self._issues)
        for code, seen in self._per_code.items():
            if seen > MAX_PER_CODE:
                severity = next(i.severity for i in self._issues if i.code is code)
                omitted = Message(
                    N_("%(count)s more %(code)s issue(s) not listed"),
                    {"count": seen - MAX_PER_CODE, "code": code.value},
                )
                issues.append(
                    ImportIssue(
                        code,
                        severity,
                        str(omitted),
                        params={"omitted": seen - MAX_PER_CODE},
                        template=omitted,
                    )
                )
        for code, key in self._group_order:
            count, examples, file = self._grouped[(code, key)]
            values = {"text": repr(key), "count": count, "examples": ", ".join(examples)}
            if code is IssueCode.UNMAPPED_ABILITY:
                message = Message(
                    N_(
                        "weapon ability %(text)s is not one the engine knows; kept as text on "
                        "%(count)s weapon profile(s), e.g. %(examples)s"
                    ),
                    values,
                )
            else:  # pragma: no cover - only one grouped code today
                message = Message(
                    N_("%(text)s: %(count)s occurrence(s), e.g. %(examples)s"),
                    {**values, "text": key},
                )
            issues.append(
                ImportIssue(
                    code,
                    IssueSeverity.WARNING,
                    str(message),
                    file=file,
                    params={"text": key, "count": count, "examples": ", ".join(examples)},
                    template=message,
                )
            )
        return ImportReport(files=files, issues=tuple(issues))
