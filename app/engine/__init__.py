"""The Auspex rules engine: pure Python, no web, no database.

Shared machinery: exact distributions (:mod:`.distributions`), dice expressions (:mod:`.dice`),
the seeded recording roller (:mod:`.roller`), engine errors (:mod:`.errors`), rule-neutral
combat results (:mod:`.combat`) and the rule-system registry (:mod:`.registry`; call
:func:`app.engine.systems.load_all` to register every system). One package per rule system.
"""
