"""A problem answer (RFC 9457, ADR 0003) checked in one place."""

from __future__ import annotations

from typing import Any

PROBLEM = "application/problem+json"


def problem_detail(response: Any, status: int, code: str) -> str:
    """The ``detail`` of ``response``, after checking it is a problem of ``status`` whose
    ``type`` ends with ``code``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert body["type"].endswith(f"/{code}"), body
    return str(body["detail"])
