"""Extract the translatable messages and add the new ones to each locale's catalogues.

``make messages`` runs this; then translate the new empty entries it lists (the test suite fails
while one is missing). Every feature keeps its own catalogue
(``translations/<locale>/LC_MESSAGES/<feature>.po``): a new message goes to the catalogue of
the feature whose code or templates use it first (``app/<feature>/``, ``templates/<feature>/``),
else to ``messages.po``. A message already in any catalogue of the locale is left where it is.
Messages no longer used are listed, not deleted. No template (``.pot``) is kept: the
catalogues are the source, and the extraction is redone on every run.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = "messages"


def _extract() -> Catalog:
    """Every message the code and templates use, with where each is used."""
    pybabel = Path(sys.executable).parent / "pybabel"
    # on top of babel's default keywords (gettext, ngettext, pgettext...): the markers of
    # module-level strings, translated when shown, and the engine's no-op marker (its refusals,
    # translated by the pages that show them: app/engine/errors.py)
    keywords = ["-k", "lazy", "-k", "lazy_pgettext:1c,2", "-k", "N_"]
    command = [str(pybabel), "extract", "-F", "babel.cfg", *keywords, "--sort-output"]
    with tempfile.TemporaryDirectory() as scratch:
        located = Path(scratch) / "messages.pot"
        subprocess.run(
            [*command, "-o", str(located), "."], cwd=ROOT, check=True, capture_output=True
        )
        with located.open("rb") as fp:
            return read_po(fp)


def _domain(locations: list[tuple[str, int | None]], domains: set[str]) -> str:
    for path, _line in locations:
        parts = Path(path).parts
        if len(parts) > 1 and parts[0] in {"app", "templates"} and parts[1] in domains:
            return parts[1]
    return DEFAULT


def _key(message_id: object) -> str:
    return message_id if isinstance(message_id, str) else str(message_id[0])  # type: ignore[index]


def _entry(message_id: object, context: str | None) -> tuple[str | None, str]:
    """A message's identity: its id within its context (``msgctxt``), for the same English
    word may need two French words ("Save": the dice stage, the button)."""
    return context, _key(message_id)


def _shown(entry: tuple[str | None, str]) -> str:
    context, message_id = entry
    return message_id if context is None else f"{message_id} [{context}]"


def update(locale_dir: Path, template: Catalog) -> tuple[dict[str, list[str]], list[str]]:
    """Add the template's new messages to the catalogues of one locale.

    Returns (new message ids by catalogue, ids in the catalogues that no code uses any more);
    a message with a context is shown as ``id [context]``.
    """
    catalogues: dict[str, Catalog] = {}
    for path in sorted(locale_dir.glob("*.po")):
        with path.open("rb") as fp:
            catalogues[path.stem] = read_po(fp, locale=locale_dir.parent.name)
    catalogues.setdefault(DEFAULT, Catalog(locale=locale_dir.parent.name, domain=DEFAULT))
    known = {_entry(m.id, m.context) for c in catalogues.values() for m in c if m.id}
    wanted = {_entry(m.id, m.context) for m in template if m.id}
    added: dict[str, list[tuple[str | None, str]]] = {}
    for message in template:
        if not message.id or _entry(message.id, message.context) in known:
            continue
        domain = _domain(message.locations, set(catalogues))
        catalogues[domain].add(
            message.id,
            string=("", "") if message.pluralizable else "",
            flags=message.flags - {"fuzzy"},
            context=message.context,
        )
        added.setdefault(domain, []).append(_entry(message.id, message.context))
    for domain, entries in added.items():
        # appended at the end: the catalogues are ordered by hand, by topic
        new = Catalog(locale=locale_dir.parent.name)
        for context, message_id in entries:
            message = catalogues[domain].get(message_id, context=context)
            assert message is not None
            new.add(message.id, string=message.string, flags=message.flags, context=message.context)
        path = locale_dir / f"{domain}.po"
        text = io.BytesIO()
        write_po(text, new, omit_header=path.exists(), no_location=True)
        before = path.read_bytes().rstrip(b"\n") + b"\n\n" if path.exists() else b""
        path.write_bytes(before + text.getvalue().lstrip(b"\n"))
    shown = {domain: [_shown(e) for e in entries] for domain, entries in added.items()}
    return shown, sorted(_shown(e) for e in known - wanted)


def main() -> int:
    template = _extract()
    for locale_dir in sorted((ROOT / "translations").glob("*/LC_MESSAGES")):
        added, unused = update(locale_dir, template)
        for domain, ids in sorted(added.items()):
            print(f"{locale_dir.parent.name}/{domain}.po: {len(ids)} new, to translate:")
            for message_id in ids:
                print(f"    {message_id}")
        if unused:
            print(f"{locale_dir.parent.name}: {len(unused)} message(s) no longer used:")
            for message_id in unused:
                print(f"    {message_id}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
