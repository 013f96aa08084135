"""Issue 18, French everywhere on the calculator: every step text, die label, stage and detail
key the engines write reaches the page through a translatable message (the extractor sees it,
so ``make messages`` lists it), and no engine key is ever shown as humanised English."""

from __future__ import annotations

import ast

from babel.messages.extract import extract_from_file

from app.core.config import ROOT

FR = {"Accept-Language": "fr"}
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "lazy": None,
    "lazy_pgettext": ((1, "c"), 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
}  # the keywords of scripts/messages.py and tests/core/test_i18n.py


def _extracted(path: str) -> set[str]:
    found: set[str] = set()
    for _line, message, _comments, _context in extract_from_file(
        "python", str(ROOT / path), keywords=KEYWORDS
    ):
        found.update([message] if isinstance(message, str) else [m for m in message if m])
    return found


def _formats(path: str) -> set[str]:
    """Every string literal of a module that is a message with placeholders."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and ("%(" in node.value)
        and not node.value.startswith("^")
    }


def test_every_message_of_the_10e_step_texts_is_extracted() -> None:
    """The roll page's 10th-edition steps and die labels ("Bolt rifle: 20 attacks", "hit
    roll") were built through helpers the extractor did not know: never translated."""
    path = "app/combat/forms/wh40k10e_words.py"
    missing = _formats(path) - _extracted(path)
    assert missing == set()
    assert {"%(name)s: %(n)d attacks", "%(name)s: hit roll", "%(name)s: wound roll"} <= (
        _extracted(path)
    )
