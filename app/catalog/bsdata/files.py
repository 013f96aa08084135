"""Reading BattleScribe files safely: ``.gst`` / ``.cat`` XML and zipped ``.gstz`` / ``.catz``.

These are user uploads, so every read is bounded (:class:`ImportLimits`): the number of files,
the size of each file once unzipped (read in chunks, so a zip bomb stops at the limit), the
number of members in an archive, and the XML is parsed by ``defusedxml`` with DTDs, entities
and external references refused. Namespaces are stripped from tag names once, and every
element with an ``id`` is indexed.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

__all__ = ["BSDataFileError", "Document", "ImportLimits", "read_document"]


@dataclass(frozen=True, slots=True)
class ImportLimits:
    """Bounds on one import (all sizes in bytes, after decompression)."""

    max_files: int = 64
    max_file_bytes: int = 32 * 1024 * 1024
    max_total_bytes: int = 160 * 1024 * 1024
    max_zip_members: int = 8
    max_elements: int = 2_000_000
    max_depth: int = 48  # entry-link nesting followed while building a datasheet
    max_steps_per_sheet: int = 100_000  # entries visited for one datasheet
    max_steps: int = 3_000_000  # entries visited for one import


class BSDataFileError(ValueError):
    """A file that is not a readable BattleScribe game system or catalogue."""

    def __init__(self, filename: str, message: str) -> None:
        super().__init__(f"{filename}: {message}")
        self.filename = filename
        self.message = message


@dataclass(slots=True)
class Document:
    """One parsed game system (``kind == "gameSystem"``) or catalogue."""

    filename: str
    kind: str
    id: str
    name: str
    revision: str
    library: bool
    game_system_id: str
    root: Element
    ids: dict[str, Element] = field(default_factory=dict, repr=False)
    size: int = 0

    def links(self) -> Iterator[tuple[str, bool]]:
        """(target catalogue id, import root entries) of each catalogue link."""
        holder = self.root.find("catalogueLinks")
        if holder is None:
            return
        for link in holder.findall("catalogueLink"):
            target = link.get("targetId")
            if target:
                yield target, link.get("importRootEntries") == "true"

    @property
    def label(self) -> str:
        return f"{self.name} (revision {self.revision})"


def _unzip(filename: str, data: bytes, limits: ImportLimits) -> bytes:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise BSDataFileError(filename, "not a valid zip archive") from None
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        if not members:
            raise BSDataFileError(filename, "the archive is empty")
        if len(members) > limits.max_zip_members:
            raise BSDataFileError(filename, f"more than {limits.max_zip_members} files inside")
        xml_members = [m for m in members if m.filename.lower().endswith((".gst", ".cat"))]
        member = (xml_members or members)[0]
        out = bytearray()
        try:
            with archive.open(member) as fh:
                while True:
                    chunk = fh.read(1 << 16)
                    if not chunk:
                        break
                    out.extend(chunk)
                    if len(out) > limits.max_file_bytes:
                        raise BSDataFileError(
                            filename, f"unzips to more than {limits.max_file_bytes} bytes"
                        )
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError) as exc:
            raise BSDataFileError(filename, f"cannot unzip: {exc}") from None
        return bytes(out)


def _local(tag: object) -> str:
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[1] if tag.startswith("{") else tag


def read_document(filename: str, data: bytes, limits: ImportLimits) -> Document:
    """Parse one uploaded file (zipped or not) into a :class:`Document`."""
    if len(data) > limits.max_file_bytes:
        raise BSDataFileError(filename, f"larger than {limits.max_file_bytes} bytes")
    if data[:4] == b"PK\x03\x04" or filename.lower().endswith(("z", ".zip")):
        data = _unzip(filename, data, limits)
    try:
        root = SafeET.fromstring(data, forbid_dtd=True)
    except DefusedXmlException as exc:
        raise BSDataFileError(filename, f"refused unsafe XML ({type(exc).__name__})") from None
    except SafeET.ParseError as exc:
        raise BSDataFileError(filename, f"not well-formed XML: {exc}") from None
    kind = _local(root.tag)
    if kind not in ("gameSystem", "catalogue"):
        raise BSDataFileError(filename, f"not a BattleScribe game system or catalogue (<{kind}>)")
    ids: dict[str, Element] = {}
    for count, el in enumerate(root.iter(), start=1):
        el.tag = _local(el.tag)
        if count > limits.max_elements:
            raise BSDataFileError(filename, f"more than {limits.max_elements} XML elements")
        eid = el.get("id")
        if eid is not None and eid not in ids:
            ids[eid] = el
    doc_id = root.get("id") or ""
    if not doc_id:
        raise BSDataFileError(filename, "the root element has no id")
    return Document(
        filename=filename,
        kind=kind,
        id=doc_id,
        name=root.get("name") or filename,
        revision=root.get("revision") or "0",
        library=root.get("library") == "true",
        game_system_id=root.get("gameSystemId") or (doc_id if kind == "gameSystem" else ""),
        root=root,
        ids=ids,
        size=len(data),
    )
