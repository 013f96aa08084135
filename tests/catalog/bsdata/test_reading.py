"""What the reader gives the builder: tags without their namespace, attributes as
ElementTree names them, every id indexed once (the first)."""

from __future__ import annotations

from app.catalog.bsdata.files import ImportLimits, read_document

CAT = b"""<?xml version="1.0"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" xmlns:x="urn:x"
  id="c1" name="Mini" revision="3" library="false" gameSystemId="sys" x:note="kept">
  <selectionEntries>
    <selectionEntry type="model" name="First" id="e1" hidden="false" x:extra="yes"/>
    <selectionEntry type="unit" name="Second" id="e1"/>
  </selectionEntries>
</catalogue>"""


def test_tags_attributes_and_ids() -> None:
    doc = read_document("mini.cat", CAT, ImportLimits())
    root = doc.root
    assert root.tag == "catalogue"
    assert root.attrib == {
        "id": "c1",
        "name": "Mini",
        "revision": "3",
        "library": "false",
        "gameSystemId": "sys",
        "{urn:x}note": "kept",
    }
    first, second = root.iter("selectionEntry")
    assert list(first.attrib) == ["type", "name", "id", "hidden", "{urn:x}extra"]
    assert second.attrib == {"type": "unit", "name": "Second", "id": "e1"}
    assert doc.ids == {"c1": root, "e1": first}
    assert (doc.kind, doc.revision, doc.size) == ("catalogue", "3", len(CAT))
