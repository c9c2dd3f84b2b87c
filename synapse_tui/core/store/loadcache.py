"""A columnar copy of what `Store.load` reads, kept beside a large store so opening it is a
memory map instead of a scan of every row (a million facts: milliseconds, not seconds).

`DB.synapse.cache` holds the arrays of `FactArrays` and the fact ids, raw, each aligned
for `np.frombuffer` over a copy-on-write map (a triage refresh may write into the arrays;
the file never changes). It names the store state it was written from: the store's
triggers (schema m003) log every insert, update or delete of a fact, by any process or
tool, with a fresh random token, and the cache keeps the newest token and log entry of its
snapshot. Read in the same snapshot as the load: the same newest token is an exact hit;
otherwise `Store.load` patches in the facts logged since (while the log reaches back to
the cache's entry with the same token) or loads by SQL. The trusted signers (config) are
part of the key too.

Anything wrong (missing, stale, another format, damaged: a CRC-32 covers the data) is a
miss, and the caller loads from SQL and writes a fresh cache when it may: a store of at
least `MIN_FACTS` facts whose file and folder are writable. Writes go to a temporary file
renamed into place, so a reader sees the old cache or the new one, never half of one.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import threading
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from synapse_tui.core.store.arrays import FactArrays

MAGIC = b"SYNLOAD\x00"
FORMAT = 3  # bump when FactArrays or what `Store.load` reads changes
MIN_FACTS = 20_000  # below this, SQL loads in tens of milliseconds: no file is worth it
PATCH_MAX = 50_000  # changes since the cache past which a full SQL load is as quick
REWRITE_AFTER = 1_000  # facts patched in past which the cache is written anew
_ALIGN = 64
_SEP = "\x1e"  # between ids; a store with an id holding it keeps lengths instead
# FactArrays fields in file order, with their dtypes
_FIELDS = (
    ("r", np.int64),
    ("s", np.int64),
    ("declared", np.int8),
    ("sig_state", np.int8),
    ("sig_trusted", np.bool_),
    ("created", np.float64),
    ("events", np.float64),
    ("offsets", np.int64),
    ("o1_count", np.int64),
    ("supersedes", np.int64),
    ("deleted", np.bool_),
    ("invalidated", np.bool_),
    ("expired", np.bool_),
)


def cache_path(db: Path) -> Path:
    return db.with_name(db.name + ".synapse.cache")


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def read_header(path: Path, signers: str) -> dict | None:
    """The cache's header (its `token`, and `seq`: the change log's newest entry when it
    was written, None when it cannot be patched) if it is one of ours for `signers`."""
    try:
        with open(path, "rb") as f:
            head = f.read(12)
            if len(head) != 12 or head[:8] != MAGIC:
                return None
            (size,) = struct.unpack("<I", head[8:])
            header = json.loads(f.read(size))
        if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("signers") != signers:
            return None
        return header
    except (OSError, ValueError, struct.error, UnicodeDecodeError):
        return None


def read(path: Path, header: dict) -> tuple[list[str], FactArrays] | None:
    """The cached ids and arrays (None if the file is not the one `header` came from, or
    is damaged). The arrays map the file copy-on-write: writable, the file untouched."""
    try:
        with open(path, "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        return _unpack(mm, header)
    except (OSError, ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError, struct.error):
        return None


def _unpack(mm: mmap.mmap, header: dict) -> tuple[list[str], FactArrays] | None:
    start, end = header["data"]
    (size,) = struct.unpack("<I", mm[8:12])
    if json.loads(mm[12 : 12 + size]) != header:  # replaced since its header was read
        return None
    if end != len(mm) or f"{zlib.crc32(memoryview(mm)[start:end]):08x}" != header["crc"]:
        return None
    n = header["n"]
    arrays: dict[str, Any] = {}
    for (name, dtype), (offset, count) in zip(_FIELDS, header["arrays"], strict=True):
        arrays[name] = np.frombuffer(mm, dtype=dtype, count=count, offset=offset)
    if any(len(arrays[name]) != n for name, _ in _FIELDS if name != "events"):
        return None
    offset, nbytes = header["ids"]
    text = mm[offset : offset + nbytes].decode("utf-8")
    lengths = header.get("id_lengths")
    if lengths is None:
        ids = text.split(_SEP)
    else:  # an id holds the separator: cut by length (rare, and slower)
        cuts = np.frombuffer(mm, dtype=np.int64, count=n, offset=lengths).cumsum().tolist()
        ids = [text[a:b] for a, b in zip([0, *cuts[:-1]], cuts, strict=True)]
    if len(ids) != n:
        return None
    return ids, FactArrays(**arrays)


def write(path: Path, token: int, seq: int | None, signers: str, ids: list[str], arrays: FactArrays) -> bool:
    """Write the cache for `token` and change-log entry `seq` (best effort: False when
    the folder refuses)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        _write(tmp, token, seq, signers, ids, arrays)
        os.replace(tmp, path)
        return True
    except OSError:
        tmp.unlink(missing_ok=True)
        return False


def _write(tmp: Path, token: int, seq: int | None, signers: str, ids: list[str], arrays: FactArrays) -> None:
    """Stream the parts out (no copy of the whole), then the header with their CRC."""
    arrays = arrays.compacted()
    blobs = [np.ascontiguousarray(getattr(arrays, name), dtype=dtype) for name, dtype in _FIELDS]
    text = _SEP.join(ids)
    lengths = None
    if text.count(_SEP) != max(len(ids) - 1, 0):
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        text = "".join(ids)
    parts: list[bytes | np.ndarray] = [*blobs, text.encode("utf-8")]
    if lengths is not None:
        parts.append(lengths)
    rel, at = [], 0  # offsets from the start of the data, which follows the header
    for part in parts:
        rel.append(at)
        at = _aligned(at + _nbytes(part))

    def header(base: int, crc: str) -> bytes:
        return json.dumps(
            {
                "format": FORMAT,
                "token": token,
                "seq": seq,
                "signers": signers,
                "n": len(ids),
                "arrays": [[base + o, len(b)] for o, b in zip(rel, blobs, strict=False)],
                "ids": [base + rel[len(blobs)], _nbytes(parts[len(blobs)])],
                "id_lengths": None if lengths is None else base + rel[-1],
                "data": [base, base + at],
                "crc": crc,
            }
        ).encode()

    base = _ALIGN
    while (need := _aligned(12 + len(header(base, "0" * 8)))) > base:
        base = need
    crc = 0
    with open(tmp, "wb") as f:
        f.seek(base)
        for o, part in zip(rel, parts, strict=True):
            raw = part.data.cast("B") if isinstance(part, np.ndarray) else part
            pad = bytes(_aligned(o + len(raw)) - o - len(raw))
            for chunk in (raw, pad):
                crc = zlib.crc32(chunk, crc)
                f.write(chunk)
        encoded = header(base, f"{crc:08x}")
        f.seek(0)
        f.write(MAGIC + struct.pack("<I", len(encoded)) + encoded)


def _nbytes(part: bytes | np.ndarray) -> int:
    return part.nbytes if isinstance(part, np.ndarray) else len(part)
