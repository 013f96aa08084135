"""The starter catalogue: ``data/catalog/starter-wh40k10e.json`` loaded into the database.

``load(session)`` upserts it (idempotent, run by ``auspex seed`` at every start): a new version
of the file replaces the stored document; army lists keep the version they were built with.
The starter belongs to nobody and is readable by everyone.
"""

from __future__ import annotations

import json
from functools import cache

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.catalog import service
from app.catalog.models import CatalogueRecord
from app.core.config import ROOT
from app.engine.wh40k10e.army import Catalogue, load_catalogues

STARTER_FILE = ROOT / "data" / "catalog" / "starter-wh40k10e.json"


@cache
def starter_catalogue() -> Catalogue:
    """The shipped starter catalogue, parsed from its file (once per process)."""
    (catalogue,) = load_catalogues(json.loads(STARTER_FILE.read_text(encoding="utf-8")))
    return catalogue


def load(session: Session) -> str:
    catalogue = starter_catalogue()
    before = session.scalar(
        select(CatalogueRecord.digest).where(CatalogueRecord.slug == service.STARTER_SLUG)
    )
    record, _created = service.store(session, catalogue, owner_id=None, slug=service.STARTER_SLUG)
    state = "loaded" if before is None else "up to date" if before == record.digest else "updated"
    return (
        f"starter catalogue {state} ({record.slug} version {record.version}, "
        f"{record.datasheet_count} datasheets)"
    )
