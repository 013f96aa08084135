"""Refusals: the typed errors a match raises instead of turning a command into events.

Every refusal has a stable ``code`` (a short snake_case string clients may switch on), a clear
``message`` for people, a ``kind`` that tells the API which HTTP status fits, and ``details``
(JSON-ready) such as the units still to test or every problem of a declaration.

Kinds: ``input`` (malformed command, 422), ``forbidden`` (acting for the other side, 403),
``conflict`` (the write named a stale version, 409), ``rules`` (the rules forbid it now, 409).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from app.engine.errors import EngineError
from app.engine.match.codec import JsonObject, JsonValue

__all__ = ["LogError", "Refusal", "RefusalKind", "StaleVersion"]


class RefusalKind(enum.StrEnum):
    INPUT = "input"
    FORBIDDEN = "forbidden"
    CONFLICT = "conflict"
    RULES = "rules"


class Refusal(EngineError):
    """A command the match will not turn into events."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        kind: RefusalKind = RefusalKind.RULES,
        details: Mapping[str, JsonValue] | None = None,
    ) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.kind = kind
        self.details: JsonObject = dict(details or {})

    def as_problem(self) -> JsonObject:
        """The JSON-ready fields an API puts in its problem document."""
        return {"code": self.code, "kind": str(self.kind), "detail": self.message, **self.details}


class StaleVersion(Refusal):
    """The write was based on an older version of the match than the current one."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(
            "stale_version",
            f"the match is at version {current}, not {expected}: refresh and try again",
            kind=RefusalKind.CONFLICT,
            details={"expected_version": expected, "current_version": current},
        )
        self.expected = expected
        self.current = current


class LogError(EngineError):
    """An imported or stored log that cannot be replayed (bad shape, bad order, bad undo)."""

    def __init__(self, message: str, *, seq: int | None = None) -> None:
        super().__init__(message if seq is None else f"event #{seq}: {message}")
        self.seq = seq
