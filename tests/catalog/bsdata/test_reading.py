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


def _same_as_elementtree(data: bytes, chunk: int | None = None) -> None:
    """Every element's tag and attributes as ElementTree reads them, namespaces stripped
    from the tags."""
    import defusedxml.ElementTree as SafeET

    from app.catalog.bsdata import files

    if chunk is not None:
        old, files.CHUNK = files.CHUNK, chunk
    try:
        doc = read_document("ns.cat", data, ImportLimits())
    finally:
        if chunk is not None:
            files.CHUNK = old
    expected = [(e.tag.rpartition("}")[2], e.attrib) for e in SafeET.fromstring(data).iter()]
    assert [(e.tag, e.attrib) for e in doc.root.iter()] == expected


def test_a_prefix_declared_below_the_root_gives_its_attributes_their_namespace() -> None:
    """Attributes are taken as expat gives them until a prefix is declared (issue 17); one
    declared on an inner element still gives ElementTree's keys from there on."""
    _same_as_elementtree(
        b'<catalogue xmlns="urn:bs" id="c1" name="N"><selectionEntries>'
        b'<selectionEntry id="e0" name="Plain"/>'
        b'<selectionEntry xmlns:y="urn:y" id="e1" y:a="1" name="Y"/>'
        b'<selectionEntry id="e2" name="After"/></selectionEntries></catalogue>'
    )


def test_the_xml_prefix_is_read_as_elementtree_does_even_across_chunks() -> None:
    """``xml:lang`` needs no declaration: the bytes are looked at, across chunk ends too."""
    data = (
        b'<catalogue xmlns="urn:bs" id="c1" name="N"><selectionEntries>'
        + b"".join(b'<selectionEntry id="e%d" name="P"/>' % i for i in range(40))
        + b'<selectionEntry id="z" xml:lang="fr" name="Z"/></selectionEntries></catalogue>'
    )
    at = data.index(b"xml:")
    _same_as_elementtree(data)
    for size in (at + 1, at + 2, at + 3):  # the first chunk ends inside "xml:"
        _same_as_elementtree(data, size)
