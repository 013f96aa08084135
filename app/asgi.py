"""The ASGI application for uvicorn: ``uvicorn app.asgi:app``."""

import os

from app.core import latency
from app.core.runtime import trace_memory_on_signal, tune_gc
from app.main import create_app

app = create_app()  # with the match tracker's hot lane (app.matches.api.hot_lane, issue 21)
# a server process: what start-up built lives as long as the process (ADR 0009); a full
# collection every W40K_FULL_GC_SECONDS as a backstop
tune_gc(app.state.settings.full_gc_seconds)
# Off unless set: a diagnostic of a server's memory growth (app.core.runtime), by a signal only.
trace_memory_on_signal(os.environ.get("W40K_TRACEMALLOC"))
latency.install()  # off unless W40K_LATENCY_TRACE is set: where a hot request's time goes
