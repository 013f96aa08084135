"""The ASGI application for uvicorn: ``uvicorn app.asgi:app``."""

import os

from app.core.runtime import trace_memory_on_signal, tune_gc
from app.main import API_PREFIX, create_app
from app.matches.api import hot_lane

app = create_app()
# The match tracker's command and refresh answered without FastAPI's dependency solving when
# they can be, exactly as FastAPI answers them (issue 21: tournament night's CPU per write).
hot_lane(app, API_PREFIX)
tune_gc()  # a server process: what start-up built lives as long as the process (ADR 0009)
# Off unless set: a diagnostic of a server's memory growth (app.core.runtime), by a signal only.
trace_memory_on_signal(os.environ.get("W40K_TRACEMALLOC"))
