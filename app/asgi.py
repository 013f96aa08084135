"""The ASGI application for uvicorn: ``uvicorn app.asgi:app``."""

from app.core.runtime import tune_gc
from app.main import create_app

app = create_app()
tune_gc()  # a server process: what start-up built lives as long as the process (ADR 0009)
