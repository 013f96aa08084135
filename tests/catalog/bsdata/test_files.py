"""Uploads are hostile until proven otherwise: bounded sizes, safe XML, clear reports."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

import pytest

from app.catalog.bsdata import ImportLimits, IssueCode, IssueSeverity, import_files
from app.catalog.bsdata.files import BSDataFileError, read_document

Zip = Callable[[str, bytes], tuple[str, bytes]]

MINIMAL_CAT = b"""<?xml version="1.0"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="c1" name="Mini"
  revision="1" library="false" gameSystemId="sys-test">
  <selectionEntries>
    <selectionEntry type="model" name="Lone Hero" id="e1">
      <costs><cost name="pts" typeId="ct-pts" value="40"/></costs>
      <categoryLinks>
        <categoryLink id="l1" name="Character" targetId="cat-character"/>
        <categoryLink id="l2" name="Faction: Minis" targetId="cat-f-mini"/>
      </categoryLinks>
      <profiles>
        <profile id="p1" name="Lone Hero" typeName="Unit">
          <characteristics>
            <characteristic name="M">6"</characteristic><characteristic name="T">4</characteristic>
            <characteristic name="SV">3+</characteristic><characteristic name="W">4</characteristic>
            <characteristic name="LD">6+</characteristic>
            <characteristic name="OC">1</characteristic>
          </characteristics>
        </profile>
      </profiles>
    </selectionEntry>
  </selectionEntries>
</catalogue>"""


def codes(result) -> set[str]:  # type: ignore[no-untyped-def]
    return {i.code.value for i in result.report.issues}


def test_a_catalogue_without_game_system_still_imports_with_a_warning() -> None:
    res = import_files([("mini.cat", MINIMAL_CAT)])
    (c,) = res.catalogues
    hero = c.datasheet("Lone Hero")
    assert hero is not None
    assert hero.character
    assert hero.points[0].points == 40
    assert hero.faction_keywords == ("Minis",)
    assert c.factions == ("Minis",)
    assert IssueCode.NO_GAME_SYSTEM.value in codes(res)
    assert IssueCode.NO_DETACHMENTS.value in codes(res)


def test_entities_and_dtds_are_refused() -> None:
    bomb = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
<catalogue id="x" name="&lol2;"/>"""
    external = b"""<?xml version="1.0"?>
<!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<catalogue id="x" name="&xxe;"/>"""
    for payload in (bomb, external):
        with pytest.raises(BSDataFileError, match="unsafe XML"):
            read_document("evil.cat", payload, ImportLimits())
    res = import_files([("evil.cat", bomb)])
    assert res.catalogues == ()
    errors = {i.code for i in res.report.errors}
    assert errors == {IssueCode.FILE_UNREADABLE, IssueCode.NO_CATALOGUE}
    assert not res.ok


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not xml at all", "not well-formed"),
        (b"<html/>", "not a BattleScribe"),
        (b"<catalogue name='no id'/>", "no id"),
        (b"PK\x03\x04broken", "not a valid zip"),
    ],
)
def test_unreadable_files(data: bytes, message: str) -> None:
    with pytest.raises(BSDataFileError, match=message):
        read_document("f.cat", data, ImportLimits())


def test_size_limits() -> None:
    limits = ImportLimits(max_file_bytes=10_000)
    with pytest.raises(BSDataFileError, match="larger than"):
        read_document("big.cat", b" " * 10_001, limits)
    # A zip bomb: a tiny archive that unzips past the limit stops at the limit.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bomb.cat", b"<" + b" " * 5_000_000 + b">")
    assert len(buf.getvalue()) < 10_000
    with pytest.raises(BSDataFileError, match="unzips to more than"):
        read_document("bomb.catz", buf.getvalue(), limits)
    many = ImportLimits(max_elements=5)
    with pytest.raises(BSDataFileError, match="more than 5 XML elements"):
        read_document("mini.cat", MINIMAL_CAT, many)


def test_zip_with_too_many_members() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(10):
            zf.writestr(f"f{i}.cat", b"<catalogue id='x'/>")
    with pytest.raises(BSDataFileError, match="more than 8 files"):
        read_document("many.catz", buf.getvalue(), ImportLimits())


def test_too_many_files_and_total_size() -> None:
    limits = ImportLimits(max_files=2)
    res = import_files([("a.cat", MINIMAL_CAT)] * 3, limits)
    assert IssueCode.TOO_MANY_FILES.value in codes(res)
    assert IssueCode.DUPLICATE_FILE.value in codes(res)  # the same catalogue twice
    res = import_files([("a.cat", MINIMAL_CAT)], ImportLimits(max_total_bytes=10))
    assert res.catalogues == ()
    assert IssueCode.FILE_UNREADABLE.value in codes(res)


def test_missing_linked_catalogue_and_foreign_game_system(files: list[tuple[str, bytes]]) -> None:
    only_marines = [f for f in files if f[0] in ("test-system.gst", "test-marines.cat")]
    res = import_files(only_marines)
    missing = res.report.of(IssueCode.MISSING_CATALOGUE_LINK)
    assert {i.params["target"] for i in missing} == {"lib-armoury", "cat-orks"}
    assert all(i.severity is IssueSeverity.WARNING for i in missing)
    (marines,) = res.catalogues
    captain = marines.datasheet("Captain")
    assert captain is not None
    assert captain.weapons == ()
    assert marines.datasheet("Boss") is None
    foreign = MINIMAL_CAT.replace(b'gameSystemId="sys-test"', b'gameSystemId="sys-other"')
    res = import_files([files[-1], ("mini.cat", foreign)])
    assert IssueCode.GAME_SYSTEM_MISMATCH.value in codes(res)


def test_link_cycles_are_cut() -> None:
    cyclic = b"""<?xml version="1.0"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cyc" name="Cyclic"
  revision="1" library="false" gameSystemId="sys-test">
  <entryLinks><entryLink id="r" name="Loop" type="selectionEntry" targetId="e-loop"/></entryLinks>
  <sharedSelectionEntries>
    <selectionEntry type="model" name="Loop" id="e-loop">
      <categoryLinks><categoryLink id="l" name="Faction: Loops" targetId="f"/></categoryLinks>
      <entryLinks>
        <entryLink id="again" name="Again" type="selectionEntry" targetId="e-loop"/>
      </entryLinks>
    </selectionEntry>
  </sharedSelectionEntries>
</catalogue>"""
    res = import_files([("cyc.cat", cyclic)])
    assert IssueCode.LINK_CYCLE.value in codes(res)
    (c,) = res.catalogues
    assert c.datasheet("Loop") is not None


def _fan_out(levels: int, width: int) -> bytes:
    """A unit whose groups each link the next group ``width`` times: width**levels paths."""
    groups = []
    for i in range(levels):
        links = "".join(
            f'<entryLink id="l{i}-{k}" name="G" type="selectionEntryGroup" targetId="g{i + 1}"/>'
            for k in range(width)
        )
        groups.append(
            f'<selectionEntryGroup name="G{i}" id="g{i}"><entryLinks>{links}</entryLinks>'
            "</selectionEntryGroup>"
        )
    groups.append('<selectionEntryGroup name="end" id="g' + str(levels) + '"/>')
    return (
        '<?xml version="1.0"?><catalogue xmlns="http://www.battlescribe.net/schema/'
        'catalogueSchema" id="fan" name="Fan" revision="1" library="false" gameSystemId="s">'
        '<entryLinks><entryLink id="r" name="Hydra" type="selectionEntry" targetId="e"/>'
        '<entryLink id="r2" name="Fine" type="selectionEntry" targetId="e2"/></entryLinks>'
        '<sharedSelectionEntries><selectionEntry type="model" name="Hydra" id="e">'
        '<entryLinks><entryLink id="root" name="G" type="selectionEntryGroup" targetId="g0"/>'
        "</entryLinks></selectionEntry>"
        '<selectionEntry type="model" name="Fine" id="e2"/></sharedSelectionEntries>'
        f"<sharedSelectionEntryGroups>{''.join(groups)}</sharedSelectionEntryGroups>"
        "</catalogue>"
    ).encode()


def test_exponential_link_fan_out_is_cut_short() -> None:
    """2**40 paths: the work budget stops the datasheet, the rest of the file imports."""
    res = import_files([("fan.cat", _fan_out(40, 2))])
    (c,) = res.catalogues
    assert c.datasheet("Hydra") is None
    assert c.datasheet("Fine") is not None
    assert IssueCode.TOO_DEEP.value in codes(res)
    tiny = ImportLimits(max_steps=50)
    res = import_files([("fan.cat", _fan_out(40, 2))], tiny)
    assert res.catalogues == ()
    assert IssueCode.TOO_DEEP in {i.code for i in res.report.errors}


def test_the_report_does_not_grow_without_bound() -> None:
    from app.catalog.bsdata.report import MAX_PER_CODE, Reporter

    reporter = Reporter()
    for i in range(MAX_PER_CODE + 50):
        reporter.warning(IssueCode.BAD_CHARACTERISTIC, f"bad {i}")
    report = reporter.report(())
    assert len(report.issues) == MAX_PER_CODE + 1
    assert report.issues[-1].params == {"omitted": 50}
