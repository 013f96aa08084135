"""army lists: the "Include Legends" setting

Revision ID: e4b7a9c2d610
Revises: c81f5a3e7d26
Create Date: 2026-11-25 22:45:00

``armies.include_legends`` (issue 17, ruling D11): a list admits Legends datasheets only with
it; new lists start without it. A list stored before this revision that already holds a Legends
datasheet of its catalogue is not silently made invalid: the upgrade turns the setting on for
it (and only for it). Run down, the column goes (the engine then treats every list as without
Legends).
"""

import unicodedata
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "e4b7a9c2d610"
down_revision: str | None = "c81f5a3e7d26"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_armies = sa.table(
    "armies",
    sa.column("id", sa.Integer),
    sa.column("catalogue_id", sa.Integer),
    sa.column("units", sa.JSON),
    sa.column("include_legends", sa.Boolean),
)
_catalogues = sa.table("catalogues", sa.column("id", sa.Integer), sa.column("document", sa.JSON))


def _key(name: str) -> str:
    """Names compared as the engine does (NFKC, casefolded, spaces collapsed)."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def _legends_names(document: Any) -> set[str]:
    sheets = document.get("datasheets") if isinstance(document, dict) else None
    out: set[str] = set()
    for sheet in sheets if isinstance(sheets, list) else ():
        if not isinstance(sheet, dict) or not isinstance(sheet.get("name"), str):
            continue
        if sheet.get("legends") is True or "[legends]" in sheet["name"].casefold():
            out.add(_key(sheet["name"]))
    return out


def upgrade() -> None:
    with op.batch_alter_table("armies") as batch:
        batch.add_column(
            sa.Column("include_legends", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(_armies.c.id, _armies.c.catalogue_id, _armies.c.units).where(
            _armies.c.catalogue_id.is_not(None)
        )
    ).all()
    by_catalogue: dict[int, list[tuple[int, Any]]] = {}
    for army_id, catalogue_id, units in rows:
        if units:
            by_catalogue.setdefault(catalogue_id, []).append((army_id, units))
    for catalogue_id, armies in by_catalogue.items():  # one catalogue document at a time
        document = conn.execute(
            sa.select(_catalogues.c.document).where(_catalogues.c.id == catalogue_id)
        ).scalar()
        legends = _legends_names(document)
        if not legends:
            continue
        hit = [
            army_id
            for army_id, units in armies
            if any(
                isinstance(u, dict)
                and isinstance(u.get("datasheet"), str)
                and _key(u["datasheet"]) in legends
                for u in units
            )
        ]
        if hit:
            conn.execute(
                sa.update(_armies).where(_armies.c.id.in_(hit)).values(include_legends=True)
            )


def downgrade() -> None:
    with op.batch_alter_table("armies") as batch:
        batch.drop_column("include_legends")
