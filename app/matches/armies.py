"""Moved to :mod:`app.matches.systems.wh40k10e.armies` (ADR 0013); this name stays, as the very
same module, until the pages are made neutral (issue 13, second phase)."""

import sys

from app.matches.systems.wh40k10e import armies as _moved
from app.matches.systems.wh40k10e.armies import *  # noqa: F403  (for the type checker)

sys.modules[__name__] = _moved
