from __future__ import annotations

from app.engine.wh40k10e.army.names import closest, name_key


def test_name_key_ignores_case_spaces_and_apostrophe_style() -> None:
    assert name_key("  Headwoppa\u2019s   KILLCHOPPA ") == name_key("headwoppa's killchoppa")
    assert name_key("Ork\u00a0Boyz") == "ork boyz"
    assert name_key("Assault \u2013 Squad") == "assault - squad"


def test_closest_spelling_then_substring() -> None:
    names = ["Intercessor Squad", "Assault Intercessor Squad", "Captain", "Chaplain"]
    assert closest("Captian", names)[0] == "Captain"
    assert closest("intercessors", names)[:2] == ("Intercessor Squad", "Assault Intercessor Squad")
    assert closest("zzzz", names) == ()
    assert closest("", names) == ()
    assert len(closest("a", names * 3, n=3)) <= 3
