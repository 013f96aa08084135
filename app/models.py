"""Every ORM model, imported so that the metadata is complete (Alembic, tests)."""

from app.core.db import Base
from app.features import load_models

load_models()

__all__ = ["Base"]
