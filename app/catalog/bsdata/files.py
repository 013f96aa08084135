"""Reading BattleScribe files safely: ``.gst`` / ``.cat`` XML and zipped ``.gstz`` / ``.catz``.

These are user uploads, so every read is bounded (:class:`ImportLimits`) *while* it happens,
never after: the XML is fed to the parser in chunks and each element is counted as the parser
opens it, so a file is refused at the first element, byte or nesting level past a limit, with
what was built so far thrown away. The bounds hold for one file (its size once unzipped, its
nesting depth) and for the whole import (a :class:`Budget` of elements and unzipped bytes shared
by every file of one request, so eight small bombs cannot add up). An archive is checked before
it is opened (the size of its central directory, hence the number of members
:mod:`zipfile` would list) and its member is decompressed in chunks up to the cap, whatever its
header declares. The XML is parsed by ``defusedxml`` with DTDs, entities and external references
refused. Namespaces are stripped from tag names and every element with an ``id`` is indexed as
the tree is built (no second pass).
"""

from __future__ import annotations

import io
import lzma
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any
from xml.etree.ElementTree import Element, TreeBuilder

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from app.engine.errors import N_, Message

__all__ = [
    "BSDataFileError",
    "Budget",
    "Document",
    "ImportLimits",
    "LimitExceeded",
    "Source",
    "read_document",
]

CHUNK = 1 << 16  # bytes fed to the parser at a time
BATTLESCRIBE_ROOTS = ("gameSystem", "catalogue")

# What an uploaded file may be: its bytes, or a seekable binary file (an upload spooled to disk).
Source = bytes | IO[bytes]


@dataclass(frozen=True, slots=True)
class ImportLimits:
    """Bounds on one import (all sizes in bytes, after decompression).

    ``max_elements`` and ``max_total_bytes`` are shared by all the files of one import; the real
    10th-edition data (the game system and 16 catalogues, 21 MB) holds 193,000 elements, nested
    21 deep at most.
    """

    max_files: int = 64
    max_file_bytes: int = 24 * 1024 * 1024
    max_total_bytes: int = 48 * 1024 * 1024
    max_zip_members: int = 8
    max_zip_directory_bytes: int = 64 * 1024  # the archive's list of members
    max_elements: int = 400_000
    max_xml_depth: int = 64  # nesting of XML elements in one file
    max_depth: int = 48  # entry-link nesting followed while building a datasheet
    max_steps_per_sheet: int = 100_000  # entries visited for one datasheet
    max_steps: int = 3_000_000  # entries visited for one import


@dataclass(slots=True)
class Budget:
    """What one import may still read: elements and unzipped bytes, across all its files."""

    elements: int
    bytes: int

    @classmethod
    def of(cls, limits: ImportLimits) -> Budget:
        return cls(elements=limits.max_elements, bytes=limits.max_total_bytes)


class BSDataFileError(ValueError):
    """A file that is not a readable BattleScribe game system or catalogue.

    ``message`` is the English reason and ``str()`` names the file; ``template`` is the same
    as a :class:`Message` (a message id marked with ``N_`` and its values) a page translates."""

    def __init__(self, filename: str, message: str | Message, **params: object) -> None:
        reason = message if isinstance(message, Message) else Message(message, params)
        self.template = Message(N_("%(file)s: %(problem)s"), {"file": filename, "problem": reason})
        super().__init__(str(self.template))
        self.filename = filename
        self.message = str(reason)


class LimitExceeded(BSDataFileError):
    """A bound of :class:`ImportLimits` was hit: the whole import stops here.

    ``limit`` names it (``files``, ``file-bytes``, ``total-bytes``, ``elements``, ``depth``,
    ``zip-members``) and ``maximum`` is its value."""

    def __init__(
        self, filename: str, message: str | Message, *, limit: str, maximum: int, **params: object
    ) -> None:
        super().__init__(filename, message, **params)
        self.limit = limit
        self.maximum = maximum


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


# What a damaged or unsupported archive raises while it is opened or read.
_UNZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    OSError,
    RuntimeError,
    NotImplementedError,
)


def _too_big(filename: str, limits: ImportLimits, *, zipped: bool) -> LimitExceeded:
    return LimitExceeded(
        filename,
        N_("unzips to more than %(most)s bytes") if zipped else N_("larger than %(most)s bytes"),
        limit="file-bytes",
        maximum=limits.max_file_bytes,
        most=limits.max_file_bytes,
    )


class _Meter:
    """Reads a stream for the parser, counting unzipped bytes against the file's cap and the
    import's budget; refuses the read that goes past either."""

    def __init__(
        self, filename: str, raw: IO[bytes], limits: ImportLimits, budget: Budget, *, zipped: bool
    ) -> None:
        self.filename = filename
        self.raw = raw
        self.zipped = zipped
        self.limits = limits
        self.budget = budget
        self.count = 0

    def read(self, size: int) -> bytes:
        try:
            chunk = self.raw.read(size)
        except _UNZIP_ERRORS as exc:
            raise BSDataFileError(
                self.filename, N_("cannot unzip: %(reason)s"), reason=str(exc)
            ) from None
        self.count += len(chunk)
        self.budget.bytes -= len(chunk)
        if self.count > self.limits.max_file_bytes:
            raise _too_big(self.filename, self.limits, zipped=self.zipped)
        if self.budget.bytes < 0:
            raise LimitExceeded(
                self.filename,
                N_("the files of this import hold more than %(most)s bytes in all (unzipped)"),
                limit="total-bytes",
                maximum=self.limits.max_total_bytes,
                most=self.limits.max_total_bytes,
            )
        return chunk


_EOCD = struct.Struct("<4s4H2LH")  # zip's end of central directory record
_EOCD_SIGNATURE = b"PK\x05\x06"
_ZIP64_LOCATOR_SIGNATURE = b"PK\x06\x07"


def _check_directory(filename: str, fh: IO[bytes], limits: ImportLimits) -> None:
    """Refuse an archive whose list of members is too long *before* :mod:`zipfile` reads it
    (it builds one object per member listed, however many the archive declares)."""
    fh.seek(0, io.SEEK_END)
    size = fh.tell()
    tail_size = min(size, _EOCD.size + 0xFFFF)  # the record, then a comment of 64 KiB at most
    fh.seek(size - tail_size)
    tail = fh.read(tail_size)
    fh.seek(0)
    at = tail.rfind(_EOCD_SIGNATURE)
    if at < 0 or len(tail) - at < _EOCD.size:
        raise BSDataFileError(filename, N_("not a valid zip archive"))
    *_, entries, directory_size, _offset, _comment = _EOCD.unpack_from(tail, at)
    zip64 = at >= 20 and tail[at - 20 : at - 16] == _ZIP64_LOCATOR_SIGNATURE
    if zip64 or directory_size > limits.max_zip_directory_bytes:
        raise LimitExceeded(
            filename,
            N_("the archive lists more than %(most)s files"),
            limit="zip-members",
            maximum=limits.max_zip_members,
            most=limits.max_zip_members,
        )
    if entries > limits.max_zip_members:
        raise LimitExceeded(
            filename,
            N_("more than %(most)s files inside"),
            limit="zip-members",
            maximum=limits.max_zip_members,
            most=limits.max_zip_members,
        )


def _zipped(filename: str, raw: IO[bytes]) -> bool:
    head = raw.read(4)
    raw.seek(0)
    return head == b"PK\x03\x04" or filename.lower().endswith(("z", ".zip"))


@contextmanager
def _opened(filename: str, raw: IO[bytes], limits: ImportLimits) -> Iterator[IO[bytes]]:
    """The XML stream of an upload: the file itself, or the XML member of an archive, read
    (decompressed) chunk by chunk."""
    if not _zipped(filename, raw):
        yield raw
        return
    _check_directory(filename, raw, limits)
    try:
        archive = zipfile.ZipFile(raw)
    except (zipfile.BadZipFile, EOFError, OSError, ValueError):
        raise BSDataFileError(filename, N_("not a valid zip archive")) from None
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        if not members:
            raise BSDataFileError(filename, N_("the archive is empty"))
        if len(members) > limits.max_zip_members:
            raise LimitExceeded(
                filename,
                N_("more than %(most)s files inside"),
                limit="zip-members",
                maximum=limits.max_zip_members,
                most=limits.max_zip_members,
            )
        xml_members = [m for m in members if m.filename.lower().endswith((".gst", ".cat"))]
        member = (xml_members or members)[0]
        if member.file_size > limits.max_file_bytes:  # declared: refused early, never trusted
            raise _too_big(filename, limits, zipped=True)
        try:
            fh = archive.open(member)
        except _UNZIP_ERRORS as exc:
            raise BSDataFileError(
                filename, N_("cannot unzip: %(reason)s"), reason=str(exc)
            ) from None
        with fh:
            yield fh


class _Builder:
    """The parser's target: a C ``TreeBuilder`` that counts, strips and indexes on the way.

    Each element is counted against the import's budget and its depth checked as the parser
    opens it, so a refused file stops at the element past the bound. :meth:`handlers` gives
    expat the same work as two closures over local state (issue 17: a third less time per
    element than bound methods reading the state from ``self``)."""

    def __init__(self, filename: str, limits: ImportLimits, budget: Budget) -> None:
        self.filename = filename
        self.limits = limits
        self.budget = budget
        self.tree = TreeBuilder()
        self.data = self.tree.data
        self.depth = 0
        self.root: Element | None = None
        self.ids: dict[str, Element] = {}

    def _too_many_elements(self) -> LimitExceeded:
        return LimitExceeded(
            self.filename,
            N_("the files of this import hold more than %(most)s XML elements in all"),
            limit="elements",
            maximum=self.limits.max_elements,
            most=self.limits.max_elements,
        )

    def _too_deep(self) -> LimitExceeded:
        return LimitExceeded(
            self.filename,
            N_("XML elements nested more than %(most)s deep"),
            limit="depth",
            maximum=self.limits.max_xml_depth,
            most=self.limits.max_xml_depth,
        )

    def _first(self, tag: str, el: Element) -> None:
        if tag not in BATTLESCRIBE_ROOTS:
            raise BSDataFileError(
                self.filename,
                N_("not a BattleScribe game system or catalogue (<%(tag)s>)"),
                tag=tag,
            )
        self.root = el

    def handlers(
        self,
    ) -> tuple[
        Callable[[str, dict[str, str]], Element],
        Callable[[str], None],
        Callable[[str, dict[str, str]], Element],
        Callable[[], None],
    ]:
        """expat's start and end handlers, for a parser that names elements ``uri}local`` and
        gives attributes as a dict (``ordered_attributes`` off; in document order all the
        same): what ElementTree's parser does in Python before it calls the target, less the
        namespace that is stripped anyway. Not to be mixed with :meth:`start` and :meth:`end`
        in one parse (the depth is the closures' own).

        Then a start handler for a document where an attribute may have a namespace (a
        prefix is declared, or ``xml:`` appears): it gives such an attribute ElementTree's
        ``{uri}local`` key; the first takes the attributes as they are (issue 17: looking
        for a namespace in every element's attributes cost a tenth of the reading). Last,
        the function that writes the elements counted back to the import's budget (counted
        in a local, checked at each element): to be called once the parse ends or fails."""
        tree_start = self.tree.start
        tree_end = self.tree.end
        ids = self.ids
        budget = self.budget
        max_depth = self.limits.max_xml_depth
        depth = 0
        left = budget.elements
        # expat's ``uri}local`` name -> the local name: expat gives each name as one string
        # object, so a look-up costs less than splitting it again (issue 17)
        local: dict[str, str] = {}

        def start(name: str, attrib: dict[str, str]) -> Element:
            nonlocal depth, left
            depth += 1
            left -= 1
            if left < 0 or depth > max_depth:
                raise self._too_many_elements() if left < 0 else self._too_deep()
            try:
                tag = local[name]
            except KeyError:
                tag = local[name] = name.rpartition("}")[2]
            el = tree_start(tag, attrib)
            if self.root is None:
                self._first(tag, el)
            eid = attrib.get("id")
            if eid is not None:
                ids.setdefault(eid, el)  # the first element with an id keeps it
            return el

        def end(name: str) -> None:
            nonlocal depth
            depth -= 1
            tree_end(name)

        def start_namespaced(name: str, attrib: dict[str, str]) -> Element:
            if attrib and "}" in "".join(attrib):
                attrib = {"{" + k if "}" in k else k: v for k, v in attrib.items()}
            return start(name, attrib)

        def counted() -> None:
            budget.elements = left

        return start, end, start_namespaced, counted

    def start(self, tag: str, attrib: dict[str, str]) -> Element:
        """The target's start, for a parser without expat's handlers (ElementTree's own)."""
        self.depth += 1
        self.budget.elements -= 1
        if self.budget.elements < 0:
            raise self._too_many_elements()
        if self.depth > self.limits.max_xml_depth:
            raise self._too_deep()
        if tag[:1] == "{":
            tag = tag[tag.index("}") + 1 :]
        el = self.tree.start(tag, attrib)
        if self.root is None:
            self._first(tag, el)
        eid = attrib.get("id")
        if eid is not None and eid not in self.ids:
            self.ids[eid] = el
        return el

    def end(self, tag: str) -> Element:
        self.depth -= 1
        return self.tree.end(tag)

    def close(self) -> Element:
        return self.tree.close()


def _parse(filename: str, stream: _Meter, builder: _Builder) -> None:
    parser: Any = SafeET.XMLParser(target=builder, forbid_dtd=True)
    # defusedxml's handlers refuse DTDs, entities and external references on the expat parser;
    # elements go from expat to the builder directly, attributes as the dict expat builds in C
    # (together a third faster than through ElementTree).
    expat: Any = getattr(parser, "parser", None)
    counted: Callable[[], None] | None = None
    start_namespaced: Callable[[str, dict[str, str]], Element] | None = None
    if expat is not None and expat.ordered_attributes and expat.StartNamespaceDeclHandler is None:
        expat.ordered_attributes = False
        start, end, start_namespaced, counted = builder.handlers()
        expat.StartElementHandler, expat.EndElementHandler = start, end

        def declared(prefix: str | None, uri: str) -> None:
            # only an attribute with a prefix has a namespace (the default one is not theirs)
            if prefix:
                expat.StartElementHandler = start_namespaced

        expat.StartNamespaceDeclHandler = declared
    tail = b""
    try:
        while chunk := stream.read(CHUNK):
            # the "xml" prefix is never declared (xml:lang...): looked for in the bytes, and
            # across the end of the last chunk
            if start_namespaced is not None and (b"xml:" in chunk or b"xml:" in tail + chunk[:3]):
                expat.StartElementHandler = start_namespaced
            tail = chunk[-3:]
            parser.feed(chunk)
        parser.close()
    except DefusedXmlException as exc:
        raise BSDataFileError(
            filename, N_("refused unsafe XML (%(reason)s)"), reason=type(exc).__name__
        ) from None
    except SafeET.ParseError as exc:
        raise BSDataFileError(
            filename, N_("not well-formed XML: %(reason)s"), reason=str(exc)
        ) from None
    finally:
        if counted is not None:
            counted()
            # ``declared`` names the parser that holds it: the cycle would keep this tree
            expat.StartNamespaceDeclHandler = None


def read_document(
    filename: str, source: Source, limits: ImportLimits, budget: Budget | None = None
) -> Document:
    """Parse one uploaded file (zipped or not) into a :class:`Document`, within ``budget``
    (what is left of the import's; a fresh one for this file alone if None)."""
    budget = budget if budget is not None else Budget.of(limits)
    raw = io.BytesIO(source) if isinstance(source, bytes) else source
    raw.seek(0, io.SEEK_END)
    if raw.tell() > limits.max_file_bytes:
        raise _too_big(filename, limits, zipped=False)
    raw.seek(0)
    builder = _Builder(filename, limits, budget)
    zipped = _zipped(filename, raw)
    with _opened(filename, raw, limits) as xml:
        meter = _Meter(filename, xml, limits, budget, zipped=zipped)
        _parse(filename, meter, builder)
    root = builder.root
    if root is None:
        raise BSDataFileError(filename, N_("not well-formed XML: no element found"))
    doc_id = root.get("id") or ""
    if not doc_id:
        raise BSDataFileError(filename, N_("the root element has no id"))
    kind = str(root.tag)
    return Document(
        filename=filename,
        kind=kind,
        id=doc_id,
        name=root.get("name") or filename,
        revision=root.get("revision") or "0",
        library=root.get("library") == "true",
        game_system_id=root.get("gameSystemId") or (doc_id if kind == "gameSystem" else ""),
        root=root,
        ids=builder.ids,
        size=meter.count,
    )
