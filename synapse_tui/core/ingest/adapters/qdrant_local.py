"""Qdrant's local folder (what mem0's Python SDK writes), read without running any of it.

The layout, as qdrant-client's local mode writes it: `meta.json` names the collections
(`{"collections": {name: config}, "aliases": {...}}`), and each collection keeps its points
in `collection/<name>/storage.sqlite`, table `points(id TEXT, point BLOB)`, one row per
point, the highest rowid being the latest write of a point. Each `point` is a pickle of a
pydantic `PointStruct`. A pickle is a program: loading one with `pickle.loads` runs
whatever it names, so a folder anyone could have written (mem0's default is `/tmp/qdrant`)
would run code as whoever imports it. Here the pickle is read by an unpickler that admits
only Qdrant's point classes, and builds a plain stand-in for them, never the class itself:
every other name in the pickle refuses the folder. No qdrant-client is needed.
"""

from __future__ import annotations

import io
import json
import pickle
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import open_read_only

# The only globals a point record's pickle names: the point and a sparse vector inside it.
_MODULES = ("qdrant_client.http.models.models", "qdrant_client.models")
_CLASSES = ("PointStruct", "SparseVector")


class _Record:
    """A pickled Qdrant model's fields, as plain data."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.fields: dict[str, Any] = dict(kwargs)

    def __setstate__(self, state: Any) -> None:
        # pydantic v2 pickles {"__dict__": fields, "__pydantic_fields_set__": ..., ...};
        # v1 {"__dict__": fields, "__fields_set__": ...}
        inner = state.get("__dict__") if isinstance(state, dict) else None
        self.fields = inner if isinstance(inner, dict) else {}


class _PointUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module in _MODULES and name in _CLASSES:
            return _Record
        raise pickle.UnpicklingError(f"it names {module}.{name}, which is not a Qdrant point record")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("it refers to an object outside itself")


def load_point(blob: bytes) -> dict[str, Any]:
    """The fields (id, vector, payload) of one pickled point; UnpicklingError for anything
    else, before any of it is run."""
    try:
        record = _PointUnpickler(io.BytesIO(blob)).load()
    except pickle.UnpicklingError:
        raise
    except Exception as exc:  # a damaged pickle: truncated, bad opcode, wrong types
        raise pickle.UnpicklingError(f"it is not a readable pickle ({type(exc).__name__})") from None
    if not isinstance(record, _Record):
        raise pickle.UnpicklingError("it is not a Qdrant point record")
    return record.fields


def collections(folder: Path) -> list[str]:
    """The collection names `meta.json` lists."""
    meta = folder / "meta.json"
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"Qdrant cannot open this folder ({exc})", file=str(meta)) from None
    names = data.get("collections") if isinstance(data, dict) else None
    if not isinstance(names, dict) or not all(isinstance(v, dict) for v in names.values()):
        raise InputError(
            'Qdrant cannot open this folder (expected {"collections": {name: config}, ...})', file=str(meta)
        )
    return sorted(names)


def points(folder: Path, collection: str, vectors: bool = True) -> Iterator[tuple[str, Any, Any]]:
    """(id, payload, vector) of each point of one collection, the latest write of each."""
    base = (folder / "collection").resolve()
    path = (base / collection).resolve()
    if path == base or not path.is_relative_to(base):
        raise InputError(f"collection {collection!r} points outside the folder; not read", file=str(folder))
    storage = path / "storage.sqlite"
    if not storage.is_file():
        return
    try:
        conn = open_read_only(storage)
        try:
            rows = conn.execute("SELECT rowid, point FROM points ORDER BY rowid DESC").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"Qdrant cannot open this folder ({exc})", file=str(storage)) from None
    seen: set[str] = set()
    for rowid, blob in rows:  # newest first: a rewritten point counts at its last write
        if not isinstance(blob, bytes):
            raise InputError(f"point at row {rowid}: not a pickled point; not read", file=str(storage))
        try:
            fields = load_point(blob)
        except pickle.UnpicklingError as exc:
            raise InputError(f"point at row {rowid}: refused, {exc}", file=str(storage)) from None
        point_id = str(fields.get("id"))
        if point_id in seen:
            continue
        seen.add(point_id)
        vector = fields.get("vector") if vectors else None
        if isinstance(vector, dict):  # named vectors: mem0 uses the unnamed one
            vector = vector.get("") or next(iter(vector.values()), None)
        if isinstance(vector, _Record):  # a sparse vector: no dense embedding
            vector = None
        yield point_id, fields.get("payload") or {}, vector
