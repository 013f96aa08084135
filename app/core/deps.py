"""Request dependencies shared by every feature: settings and the database session."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.core.config import Settings

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_db(request: Request) -> Iterator[Session]:
    """The request's session: committed when the endpoint returns, rolled back if it raises.

    Used with ``scope="function"`` so that the commit happens before the response is sent: a
    client never sees success for a write that did not commit. An unsafe method (POST, PUT,
    PATCH, DELETE) opens a write transaction: concurrent edits queue instead of failing.
    """
    yield from request.app.state.db.session(write=request.method not in SAFE_METHODS)


DbSession = Annotated[Session, Depends(get_db, scope="function")]
AppSettings = Annotated[Settings, Depends(get_settings_dep)]
