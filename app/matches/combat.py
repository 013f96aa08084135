"""Moved to :mod:`app.matches.systems.wh40k10e.combat` (ADR 0013); this name stays, as the very
same module, until the pages are made neutral (issue 13, second phase)."""

import sys

from app.matches.systems.wh40k10e import combat as _moved
from app.matches.systems.wh40k10e.combat import *  # noqa: F403  (for the type checker)

sys.modules[__name__] = _moved
