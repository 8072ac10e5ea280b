"""Find CUDA fatbins and PTX text in a shared library and say which GPU archs they hold.

Layout (little-endian), as reverse-engineered in public sources and checked here on real wheels:

* fatbin header, 16 bytes: u32 magic 0xBA55ED50, u16 version (1), u16 header size (16), u64 size of
  the entries that follow.
* each entry: u16 kind (1 = PTX, 2 = ELF/SASS), u16 version, u32 entry header size (64, 72, 80, 96,
  ...), u64 padded payload size, u32 compressed size, u32 options offset, u16 minor, u16 major, u32
  arch (e.g. 90), u32 name offset, u32 name length, u64 flags, u64 reserved, u64 decompressed size.
  For PTX entries major.minor is the PTX ISA version (the ``.version`` line of the text).
* flags: 0x2000 = payload compressed with NVIDIA's LZ4-like scheme, 0x8000 = zstd; 0x100000 marks
  arch-specific code ("a", e.g. sm_90a), 0x200000 family-specific code ("f", e.g. sm_120f).

PTX can also sit in a library as plain text (e.g. XLA's hand-written kernels); ``scan`` reports that
separately because the runtime JIT-compiles it the same way.
"""

from __future__ import annotations

import bisect
import mmap
import re
import struct
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

FATBIN_MAGIC = 0xBA55ED50
MAGIC_BYTES = struct.pack("<I", FATBIN_MAGIC)
HEADER = struct.Struct("<IHHQ")
ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")

KIND_PTX = 1
KIND_ELF = 2

FLAG_64BIT = 0x1
FLAG_HOST_LINUX = 0x10
FLAG_COMPRESSED_LZ = 0x2000
FLAG_COMPRESSED_ZSTD = 0x8000
FLAG_ARCH_SPECIFIC = 0x100000
FLAG_FAMILY_SPECIFIC = 0x200000

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# A library image: bytes for small members and tests, mmap for the big ones.
Buffer = bytes | mmap.mmap
# Reading the PTX head is enough for .version/.target; never inflate whole kernels.
PTX_HEAD_BYTES = 512
PTX_TEXT = re.compile(rb"\.version[ \t]+(\d+)\.(\d+)[ \t]*\r?\n(?:[ \t]*//[^\n]*\n|\s)*\.target[ \t]+(\w+)")


@dataclass(frozen=True)
class Entry:
    """One fatbin entry; ``payload_offset`` is absolute within the scanned buffer."""

    kind: int
    arch: int
    major: int
    minor: int
    flags: int
    payload_offset: int
    payload_size: int
    compressed_size: int
    decompressed_size: int

    @property
    def compression(self) -> str | None:
        if self.flags & FLAG_COMPRESSED_LZ:
            return "lz"
        if self.flags & FLAG_COMPRESSED_ZSTD:
            return "zstd"
        return None

    @property
    def suffix(self) -> str:
        if self.flags & FLAG_ARCH_SPECIFIC:
            return "a"
        if self.flags & FLAG_FAMILY_SPECIFIC:
            return "f"
        return ""

    @property
    def sm(self) -> str:
        return f"sm_{self.arch}{self.suffix}"


@dataclass(frozen=True)
class Fatbin:
    offset: int
    end: int
    entries: tuple[Entry, ...]


class FatbinError(ValueError):
    pass


def parse_fatbin(buf: Buffer, offset: int) -> Fatbin:
    """Parse the fatbin whose magic sits at ``offset``; raise FatbinError when it is not one."""
    if offset + HEADER.size > len(buf):
        raise FatbinError("truncated header")
    magic, version, header_size, size = HEADER.unpack_from(buf, offset)
    if magic != FATBIN_MAGIC or version != 1 or header_size != HEADER.size:
        raise FatbinError(f"bad header magic={magic:#x} version={version} size={header_size}")
    start = offset + header_size
    end = start + size
    if end > len(buf):
        raise FatbinError("fatbin runs past the end of the file")
    entries: list[Entry] = []
    pos = start
    while pos + ENTRY.size <= end:
        (kind, _ver, ehs, padded, csize, _opt, minor, major, arch, _no, _nl, flags, _z, dsize) = (
            ENTRY.unpack_from(buf, pos)
        )
        if ehs < ENTRY.size or pos + ehs + padded > end:
            raise FatbinError(f"bad entry at {pos:#x}: header size {ehs}, payload {padded}")
        entries.append(
            Entry(
                kind=kind,
                arch=arch,
                major=major,
                minor=minor,
                flags=flags,
                payload_offset=pos + ehs,
                payload_size=padded,
                compressed_size=csize,
                decompressed_size=dsize,
            )
        )
        pos += ehs + padded
    return Fatbin(offset=offset, end=end, entries=tuple(entries))


def iter_fatbins(buf: Buffer) -> Iterator[Fatbin | FatbinError]:
    """Yield every fatbin found by its magic; a magic that does not parse is yielded as the error."""
    pos = 0
    while True:
        hit = buf.find(MAGIC_BYTES, pos)
        if hit < 0:
            return
        try:
            fb = parse_fatbin(buf, hit)
        except FatbinError as exc:
            yield exc
            pos = hit + 4
            continue
        yield fb
        pos = fb.end


def lz_decompress(data: bytes, limit: int | None = None) -> bytes:
    """Inflate NVIDIA's LZ4-like fatbin compression; stop early once ``limit`` bytes are out.

    Each sequence: a token (high nibble literal count, low nibble match length - 4, 15 = more
    bytes follow, each adding up to 255), the literals, then a u16 back offset for the match.
    """
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        token = data[i]
        i += 1
        literals = token >> 4
        if literals == 15:
            while i < n:
                extra = data[i]
                i += 1
                literals += extra
                if extra != 255:
                    break
        out += data[i : i + literals]
        i += literals
        if i >= n or (limit is not None and len(out) >= limit):
            break
        if i + 2 > n:
            raise ValueError("truncated match offset")
        back = data[i] | (data[i + 1] << 8)
        i += 2
        length = (token & 0xF) + 4
        if length == 19:
            while i < n:
                extra = data[i]
                i += 1
                length += extra
                if extra != 255:
                    break
        start = len(out) - back
        if back == 0 or start < 0:
            raise ValueError(f"bad back offset {back} at output {len(out)}")
        for k in range(length):  # overlapping copies are legal, so byte by byte
            out.append(out[start + k])
        if limit is not None and len(out) >= limit:
            break
    return bytes(out if limit is None else out[:limit])


def _zstd_head(data: bytes, limit: int) -> bytes | None:
    """Decompress the start of a zstd payload when a zstd module is available (optional)."""
    try:
        import zstandard  # type: ignore[import-not-found]
    except ImportError:
        return None
    reader = zstandard.ZstdDecompressor().stream_reader(data)
    return bytes(reader.read(limit))


def payload_head(buf: Buffer, entry: Entry, limit: int = PTX_HEAD_BYTES) -> bytes | None:
    """First ``limit`` bytes of the entry's plain payload, or None when it cannot be inflated here."""
    size = entry.compressed_size if entry.compression and entry.compressed_size else entry.payload_size
    raw = bytes(buf[entry.payload_offset : entry.payload_offset + min(size, entry.payload_size)])
    if entry.compression == "lz":
        return lz_decompress(raw, limit)
    if entry.compression == "zstd" or raw.startswith(ZSTD_MAGIC):
        return _zstd_head(raw, limit)
    return raw[:limit]


def ptx_version_target(text: bytes) -> tuple[str, str] | None:
    """(".version" ISA, ".target") from the start of a PTX text, e.g. ("8.3", "sm_90a")."""
    m = PTX_TEXT.search(text)
    if not m:
        return None
    return f"{int(m.group(1))}.{int(m.group(2))}", m.group(3).decode()


def compute_name(target: str) -> str:
    """PTX targets are virtual archs: sm_90a -> compute_90a."""
    return "compute_" + target.split("_", 1)[1] if target.startswith("sm_") else target


@dataclass
class Scan:
    """What one library holds: SASS archs and PTX (arch, ISA), with entry counts."""

    fatbins: int = 0
    bad_magic: int = 0
    sass: Counter[str] = field(default_factory=Counter)
    ptx: Counter[tuple[str, str]] = field(default_factory=Counter)
    ptx_text: Counter[tuple[str, str]] = field(default_factory=Counter)
    compression: Counter[str] = field(default_factory=Counter)
    notes: set[str] = field(default_factory=set)

    @property
    def empty(self) -> bool:
        return not (self.fatbins or self.ptx_text)

    def merge(self, other: Scan) -> None:
        self.fatbins += other.fatbins
        self.bad_magic += other.bad_magic
        self.sass.update(other.sass)
        self.ptx.update(other.ptx)
        self.ptx_text.update(other.ptx_text)
        self.compression.update(other.compression)
        self.notes |= other.notes

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "fatbins": self.fatbins,
            "sass": {k: self.sass[k] for k in sort_archs(self.sass)},
            "ptx": [{"arch": a, "isa": isa, "entries": n} for (a, isa), n in sorted_ptx(self.ptx)],
        }
        if self.ptx_text:
            out["ptx_text"] = [
                {"arch": a, "isa": isa, "count": n} for (a, isa), n in sorted_ptx(self.ptx_text)
            ]
        if self.compression:
            out["compression"] = dict(sorted(self.compression.items()))
        if self.notes:
            out["notes"] = sorted(self.notes)
        return out


def arch_key(name: str) -> tuple[int, str]:
    """Numeric order for sm_/compute_ names: sm_89 < sm_90 < sm_90a < sm_100."""
    m = re.search(r"_(\d+)([a-z]*)$", name)
    return (int(m.group(1)), m.group(2)) if m else (10**6, name)


def sort_archs(names: Iterable[str]) -> list[str]:
    return sorted(set(names), key=arch_key)


def sorted_ptx(counter: Counter[tuple[str, str]]) -> list[tuple[tuple[str, str], int]]:
    return sorted(counter.items(), key=lambda kv: (arch_key(kv[0][0]), kv[0][1]))


def scan(buf: Buffer) -> Scan:
    """Scan a whole library image (bytes or mmap) for fatbins and for PTX text outside them."""
    result = Scan()
    spans: list[tuple[int, int]] = []
    for fb in iter_fatbins(buf):
        if isinstance(fb, FatbinError):
            result.bad_magic += 1
            continue
        result.fatbins += 1
        spans.append((fb.offset, fb.end))
        for entry in fb.entries:
            result.compression[entry.compression or "none"] += 1
            if entry.kind == KIND_ELF:
                result.sass[entry.sm] += 1
            elif entry.kind == KIND_PTX:
                result.ptx[_ptx_key(buf, entry, result.notes)] += 1
            else:
                result.notes.add(f"entry kind {entry.kind} for arch {entry.arch}")
    starts = [s for s, _ in spans]
    for offset, isa, target in iter_ptx_text(buf):
        k = bisect.bisect_right(starts, offset) - 1
        if k >= 0 and offset < spans[k][1]:
            continue  # literal run inside a (compressed) fatbin PTX entry, already counted
        result.ptx_text[(compute_name(target), isa)] += 1
    return result


def _ptx_key(buf: Buffer, entry: Entry, notes: set[str]) -> tuple[str, str]:
    header_isa = f"{entry.major}.{entry.minor}"
    try:
        head = payload_head(buf, entry)
    except ValueError:
        head = None
    found = ptx_version_target(head) if head else None
    if found is None:
        if entry.compression == "zstd":
            notes.add("zstd PTX read from entry headers only (no zstd module)")
        return f"compute_{entry.arch}{entry.suffix}", header_isa
    isa, target = found
    if isa != header_isa:
        notes.add(f"PTX header ISA {header_isa} but text says .version {isa}")
    return compute_name(target), isa


def iter_ptx_text(buf: Buffer) -> Iterator[tuple[int, str, str]]:
    """(offset, ISA, target) for each ``.version X.Y`` ... ``.target sm_NN`` in the raw bytes."""
    pos = 0
    while True:
        hit = buf.find(b".version", pos)
        if hit < 0:
            return
        m = PTX_TEXT.match(bytes(buf[hit : hit + 256]))
        if m:
            yield hit, f"{int(m.group(1))}.{int(m.group(2))}", m.group(3).decode()
        pos = hit + 8
