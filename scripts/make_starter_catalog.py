"""Generate the starter catalogue shipped with the app: data/catalog/starter-wh40k10e.json.

    .venv/bin/python scripts/make_starter_catalog.py [BSDATA_DIR] [--out PATH] [--check]

It imports the community's BSData files (game system, Space Marines, Orks and their linked
libraries) with our importer and keeps a selection of datasheets per faction: Characters, Epic
Heroes, Battleline units, Dedicated Transports, other infantry and vehicles, enough for legal
Incursion (1000) and Strike Force (2000) lists, plus every detachment with its enhancements.
A catalogue holds numbers and names only (profiles, weapons, points, keywords, ability names):
no rules text is ever written. The output is deterministic (same input files, same bytes).
``--check`` regenerates in memory and fails if the committed file differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.catalog.bsdata import import_files  # noqa: E402
from app.engine.wh40k10e.army import (  # noqa: E402
    BattleSize,
    Catalogue,
    Roster,
    RosterUnit,
    dump_catalogues,
    merge_catalogues,
    validate,
)

DEFAULT_SOURCE = ROOT.parent / "shared" / "data" / "bsdata-wh40k-10e"
DEFAULT_OUT = ROOT / "data" / "catalog" / "starter-wh40k10e.json"
STARTER_ID = "starter-wh40k10e"
STARTER_EDITION = 1  # bump when the selection below changes

# Faction keyword -> datasheets kept (by name, as in the data).
SELECTION: dict[str, tuple[str, ...]] = {
    "Adeptus Astartes": (
        # Characters
        "Captain",
        "Captain in Terminator Armour",
        "Captain with Jump Pack",
        "Lieutenant",
        "Chaplain",
        "Librarian",
        "Apothecary",
        "Ancient",
        "Judiciar",
        # Epic Hero (the only Adeptus Astartes ones in this data are Legends)
        "Ferren Areios [Legends]",
        # Battleline
        "Intercessor Squad",
        "Assault Intercessor Squad",
        "Heavy Intercessor Squad",
        "Tactical Squad",
        # Infantry
        "Hellblaster Squad",
        "Sternguard Veteran Squad",
        "Bladeguard Veteran Squad",
        "Terminator Squad",
        "Eradicator Squad",
        "Infernus Squad",
        "Scout Squad",
        "Inceptor Squad",
        # Dedicated Transports
        "Rhino",
        "Razorback",
        "Impulsor",
        "Drop Pod",
        # Vehicles
        "Redemptor Dreadnought",
        "Ballistus Dreadnought",
        "Predator Destructor",
        "Gladiator Lancer",
        "Land Raider",
        "Repulsor",
        "Whirlwind",
    ),
    "Orks": (
        # Characters
        "Warboss",
        "Warboss in Mega Armour",
        "Beastboss",
        "Big Mek",
        "Big Mek in Mega Armour",
        "Mek",
        "Painboy",
        "Weirdboy",
        # Epic Heroes
        "Ghazghkull Thraka",
        "Boss Snikrot",
        "Mozrog Skragbad",
        # Battleline
        "Boyz",
        "Beast Snagga Boyz",
        # Infantry
        "Gretchin",
        "Nobz",
        "Meganobz",
        "Kommandos",
        "Stormboyz",
        "Lootas",
        "Burna Boyz",
        "Tankbustas",
        # Dedicated Transport
        "Trukk",
        # Vehicles and walkers
        "Battlewagon",
        "Deff Dread",
        "Killa Kans",
        "Gorkanaut",
        "Mek Gunz",
        "Deffkoptas",
        "Warbikers",
    ),
}

# Legal sample lists: the script refuses to write a starter catalogue in which they fail.
SAMPLE_LISTS: tuple[Roster, ...] = (
    Roster(
        faction="Adeptus Astartes",
        detachment="Gladius Task Force",
        battle_size=BattleSize.INCURSION,
        name="Starter Incursion (Space Marines)",
        units=(
            RosterUnit("Captain", enhancements=("Artificer Armour",), warlord=True, attached_to=2),
            RosterUnit("Lieutenant", attached_to=3),
            RosterUnit("Intercessor Squad", models=10),
            RosterUnit("Intercessor Squad", models=5),
            RosterUnit("Rhino"),
            RosterUnit("Redemptor Dreadnought"),
            RosterUnit("Hellblaster Squad", models=5),
        ),
    ),
    Roster(
        faction="Orks",
        detachment="War Horde",
        battle_size=BattleSize.STRIKE_FORCE,
        name="Starter Strike Force (Orks)",
        units=(
            RosterUnit("Ghazghkull Thraka", warlord=True, attached_to=3),
            RosterUnit("Warboss", enhancements=("Follow Me Ladz",), attached_to=4),
            RosterUnit("Big Mek", attached_to=5),
            RosterUnit("Meganobz", models=6),
            RosterUnit("Boyz", models=20),
            RosterUnit("Boyz", models=10),
            RosterUnit("Trukk"),
            RosterUnit("Battlewagon"),
            RosterUnit("Gretchin", models=11),
            RosterUnit("Deff Dread"),
            RosterUnit("Mek Gunz", models=3),
            RosterUnit("Kommandos", models=10),
        ),
    ),
)


def _read_files(source: Path) -> list[tuple[str, bytes]]:
    files = sorted(
        p for p in source.iterdir() if p.suffix.lower() in (".gst", ".cat", ".gstz", ".catz")
    )
    if not files:
        raise SystemExit(f"no BattleScribe files in {source}")
    return [(p.name, p.read_bytes()) for p in files]


def build(source: Path) -> Catalogue:
    result = import_files(_read_files(source))
    if result.report.errors:
        for issue in result.report.errors:
            print(f"error: {issue.message}", file=sys.stderr)
        raise SystemExit(1)
    picked: list[Catalogue] = []
    versions: list[str] = []
    for faction, names in SELECTION.items():
        cat = next((c for c in result.catalogues if c.faction(faction)), None)
        if cat is None:
            raise SystemExit(f"no catalogue for {faction}")
        sheets = []
        for name in names:
            sheet = cat.datasheet(name, faction)
            if sheet is None or faction not in sheet.faction_keywords:
                raise SystemExit(f"{faction}: no datasheet {name!r} in {cat.name}")
            sheets.append(replace(sheet, source=""))
        versions.append(f"{'-'.join(cat.id.split('-')[-2:])}-{cat.version.split('+')[0]}")
        picked.append(
            replace(cat, datasheets=tuple(sheets), detachments=cat.detachments_of(faction))
        )
    gst = next((f for f in result.report.files if f.kind == "gameSystem"), None)
    version = f"{STARTER_EDITION}+" + "+".join(versions)
    if gst is not None:
        version += f"+gst-r{gst.revision}"
    starter = merge_catalogues(
        picked,
        id=STARTER_ID,
        name="Starter catalogue (Space Marines, Orks)",
        version=version,
        source="Generated by scripts/make_starter_catalog.py from the BSData files "
        "(numbers and names only)",
    )
    for roster in SAMPLE_LISTS:
        res = validate(roster, starter)
        if not res.valid:
            for v in res.violations:
                print(f"{roster.name}: {v.code}: {v.message}", file=sys.stderr)
            raise SystemExit(f"sample list {roster.name!r} is not valid")
    return starter


def render(starter: Catalogue) -> str:
    return json.dumps(dump_catalogues([starter]), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="fail if the output would change")
    args = parser.parse_args(argv)
    text = render(build(args.source))
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(
                f"{args.out} is out of date: run scripts/make_starter_catalog.py", file=sys.stderr
            )
            return 1
        print(f"{args.out} is up to date")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
