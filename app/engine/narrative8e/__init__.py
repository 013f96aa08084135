"""The narrative missions of the 8th-edition book (seed 003), played with 10th-edition armies.

Pure engine: mission packs as data (:mod:`.pack`) and the mechanics the missions need, each a
pure function or a small immutable state machine that takes its dice from a
:class:`~app.engine.roller.Roller` (seeded, or dice given by hand):

- :mod:`.setup`: attacker/defender selection, first turn, hidden deployment, preliminary
  bombardment, dawn raid;
- :mod:`.battle`: random game length, reserves, sentries and the alarm, sustained assault;
- :mod:`.objectives`: sabotage attempts, the spy of Rescue, mission stratagems and their CP;
- :mod:`.victory`: per-mission victory evaluation with its VP breakdown;
- :mod:`.zones`: combat zones and expansions as numbers.

Vocabulary follows :mod:`app.engine.match.missions` (``attacker``/``defender``, roll-offs,
battle rounds) so the match layer can plug a narrative mission in beside Only War.
Readings where the seed is silent: ``docs/rulings/narrative-8e.md``.
"""
