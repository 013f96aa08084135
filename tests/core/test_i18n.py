"""English and French are both maintained: every message has a French translation."""

from __future__ import annotations

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from app.core.config import ROOT
from app.core.i18n import negotiate, translations


def _extracted_msgids() -> set[tuple[str | None, str]]:
    """Every (context, message id) the code and templates use."""
    method_map = [("app/**.py", "python"), ("templates/**.html", "jinja2")]
    options = {
        "templates/**.html": {"extensions": "jinja2.ext.i18n", "trimmed": "true"},
        "app/**.py": {},
    }
    ids: set[tuple[str | None, str]] = set()
    for _file, _line, message, _comments, context in extract_from_dir(
        str(ROOT),
        method_map,
        options_map=options,
        keywords={
            "_": None,
            "gettext": None,
            "ngettext": (1, 2),
            "lazy": None,
            "N_": None,
            "lazy_pgettext": ((1, "c"), 2),
            "pgettext": ((1, "c"), 2),
            "npgettext": ((1, "c"), 2, 3),
        },
    ):
        ids.add((context, message if isinstance(message, str) else message[0]))
    return ids


def _french() -> dict[tuple[str | None, str], str]:
    merged: dict[tuple[str | None, str], str] = {}
    for path in sorted((ROOT / "translations" / "fr" / "LC_MESSAGES").glob("*.po")):
        with path.open("rb") as fp:
            for message in read_po(fp, locale="fr"):
                if message.id:
                    key = message.id if isinstance(message.id, str) else message.id[0]
                    value = message.string if isinstance(message.string, str) else message.string[0]
                    merged[(message.context, key)] = value
    return merged


def test_every_message_has_a_french_translation() -> None:
    french = _french()
    missing = sorted(
        (m if c is None else f"{m} [{c}]") for c, m in _extracted_msgids() if not french.get((c, m))
    )
    assert missing == [], f"untranslated messages: {missing[:20]}"


def test_accept_language_negotiation() -> None:
    assert negotiate("fr-FR,fr;q=0.9,en;q=0.8") == "fr"
    assert negotiate("de-DE,en;q=0.5") == "en"
    assert negotiate("de, it") is None
    assert negotiate("en;q=0.2, fr;q=0.9") == "fr"
    assert negotiate("fr;q=0") is None
    assert negotiate("") is None


def test_french_catalogue_translates() -> None:
    assert translations("fr").gettext("Log in") == "Se connecter"


def test_make_messages_adds_a_new_message_to_its_features_catalogue(tmp_path) -> None:
    """New messages land, untranslated, at the end of the catalogue of the feature using them;
    messages already translated anywhere are left alone, and a second run adds nothing."""
    import importlib.util

    from babel.messages.catalog import Catalog

    spec = importlib.util.spec_from_file_location("messages", ROOT / "scripts" / "messages.py")
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    locale_dir = tmp_path / "fr" / "LC_MESSAGES"
    locale_dir.mkdir(parents=True)
    matches = '# by hand\nmsgid "Zebra"\nmsgstr "Zèbre"\n\nmsgid "Apple"\nmsgstr "Pomme"\n'
    (locale_dir / "matches.po").write_text(matches, encoding="utf-8")
    template = Catalog()
    template.add("Zebra", locations=[("app/leagues/web.py", 3)])  # known: stays in matches.po
    template.add("Gone?", locations=[("templates/matches/match.html", 9)])
    template.add("Odd one", locations=[("app/core/errors.py", 1)])

    added, unused = script.update(locale_dir, template)

    assert added == {"matches": ["Gone?"], "messages": ["Odd one"]}
    assert unused == ["Apple"]
    text = (locale_dir / "matches.po").read_text(encoding="utf-8")
    assert text.startswith(matches.rstrip("\n"))  # the hand-made order is kept
    assert text.rstrip().endswith('msgid "Gone?"\nmsgstr ""')
    created = (locale_dir / "messages.po").read_text(encoding="utf-8")
    assert "charset=utf-8" in created  # a new catalogue gets its header
    assert 'msgid "Odd one"' in created
    assert script.update(locale_dir, template) == ({}, ["Apple"])


def test_make_messages_keeps_two_meanings_of_one_word_apart(tmp_path) -> None:
    """One English word with two French words: the message with a context (``msgctxt``) is a
    new entry beside the plain one, shown as ``id [context]``, and is found on the next run."""
    import importlib.util

    from babel.messages.catalog import Catalog

    spec = importlib.util.spec_from_file_location("messages", ROOT / "scripts" / "messages.py")
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    locale_dir = tmp_path / "fr" / "LC_MESSAGES"
    locale_dir.mkdir(parents=True)
    (locale_dir / "combat.po").write_text('msgid "Save"\nmsgstr "Enregistrer"\n', encoding="utf-8")
    template = Catalog()
    template.add("Save", locations=[("templates/combat/calculator.html", 1)])
    template.add("Save", locations=[("app/combat/present.py", 2)], context="dice stage")

    added, unused = script.update(locale_dir, template)

    assert added == {"combat": ["Save [dice stage]"]}
    assert unused == []
    text = (locale_dir / "combat.po").read_text(encoding="utf-8")
    assert 'msgctxt "dice stage"\nmsgid "Save"\nmsgstr ""' in text
    assert script.update(locale_dir, template) == ({}, [])


def test_make_messages_extracts_what_the_code_marks() -> None:
    """``make messages`` sees every message this test sees, with its plural and its context:
    a plural extracted as a singular (as a ``keywords`` line in babel.cfg once did) would leave
    the plural form untranslated."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("messages", ROOT / "scripts" / "messages.py")
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    extracted = script._extract()
    found = {(m.context, script._key(m.id)) for m in extracted if m.id}
    assert _extracted_msgids() - found == set()
    plural = {script._key(m.id) for m in extracted if m.id and m.pluralizable}
    assert "%(num)d datasheet" in plural  # from a template
    assert {m for m in _python_plurals() if m not in plural} == set()


def _python_plurals() -> set[str]:
    ids: set[str] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT),
        [("app/**.py", "python")],
        keywords={"ngettext": (1, 2)},
    ):
        if not isinstance(message, str):
            ids.add(message[0])
    return ids
