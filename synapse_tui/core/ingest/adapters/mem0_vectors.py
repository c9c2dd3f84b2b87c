"""mem0's vector stores: what each memory is now (who wrote it, its session, its embedding).

history.db keeps the texts a memory has held; only the vector store keeps the payload
(`user_id`, `agent_id`, `run_id`, `actor_id`, `role`, the caller's metadata) and the
embedding of the current text. Three layouts are read, none of them written:

- the local Qdrant folder of the Python SDK (collection `mem0`, entities in `mem0_entities`),
  whose points are pickles: read by `qdrant_local`, which runs none of them. mem0's default
  folder, `/tmp/qdrant`, is never read unless named: anyone on the machine can create it;
- the TypeScript SDK's `vector_store.db`: `vectors(id, vector BLOB float32, payload JSON)`;
- a FAISS folder: the JSON docstore (`<collection>.json`: `{"docstore": {id: payload},
  "index_to_id": {row: id}}`) and, for the flat indexes mem0 creates (`IndexFlatIP` for
  cosine, `IndexFlatL2`), the vectors in `<collection>.faiss`, whose layout is plain: a
  four-byte code, d, ntotal, two reserved words, is_trained, the metric, then the vectors
  as one float32 array. Any other index type is reported as not read.
"""

from __future__ import annotations

import json
import sqlite3
import struct
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.limits import counted
from synapse_tui.core.ingest.adapters import open_read_only, qdrant_local, require_own

# The TypeScript SDK wrote camelCase keys before it settled on mem0's snake_case ones.
_CAMEL = {
    "userId": "user_id",
    "agentId": "agent_id",
    "runId": "run_id",
    "actorId": "actor_id",
    "createdAt": "created_at",
    "updatedAt": "updated_at",
    "textLemmatized": "text_lemmatized",
}
EXPECTED = (
    "a mem0 vector store (a local Qdrant folder, a FAISS folder, or the TypeScript SDK's vector_store.db)"
)


@dataclass
class Point:
    payload: dict[str, Any]
    vector: np.ndarray | None


@dataclass
class Vectors:
    """The memories (by mem0 id) and entities a vector store holds now."""

    where: str
    collection: str  # names the embedding space: mem0 records no model (see Snapshot.space)
    memories: dict[str, Point] = field(default_factory=dict)
    entities: dict[str, list[str]] = field(default_factory=dict)  # memory id -> entity names
    left_out: list[str] = field(default_factory=list)


def normalise_payload(payload: dict[str, Any]) -> dict[str, Any]:
    out = dict(payload)
    for camel, snake in _CAMEL.items():
        if camel in out and snake not in out:
            out[snake] = out.pop(camel)
    return out


def default_location(history: Path, typescript: bool) -> Path | None:
    """Where mem0 puts its vectors by default, if anything is there. Only the TypeScript SDK's
    defaults, in the user's own folders: the Python SDK's `/tmp/qdrant` is in a folder every
    user can write, so it is read only when named with --vectors."""
    if typescript:  # beside the history, else the SDK's default ~/.mem0/vector_store.db
        for folder in (history.parent, Path.home() / ".mem0"):
            for name in ("vector_store.db", "vector_store_memories.db"):
                if (folder / name).is_file():
                    return folder / name
    return None


def read_vectors(path: Path) -> Vectors:
    """The vector store at `path`, whichever of the three layouts it is; refused unless
    it is the user's own (`require_own`)."""
    if path.exists():
        require_own(path)
    if path.is_file():
        return _read_sqlite(path)
    if not path.is_dir():
        raise InputError(f"no such file or folder; expected {EXPECTED}", file=str(path))
    if (path / "meta.json").is_file():
        return _read_qdrant(path)
    if path.parent.name == "collection" and (path.parent.parent / "meta.json").is_file():
        return _read_qdrant(path.parent.parent, path.name)  # one collection of a Qdrant folder
    docstores = [p for p in sorted(path.glob("*.json")) if p.with_suffix(".faiss").is_file()]
    if docstores:
        return _read_faiss(path, docstores)
    raise InputError(f"expected {EXPECTED}", file=str(path))


def _add(out: Vectors, memory_id: str, payload: Any, vector: Any) -> None:
    if not isinstance(payload, dict):
        raise InputError(f"point {memory_id!r}: payload is not a JSON object", file=out.where)
    payload = normalise_payload(payload)
    if "linked_memory_ids" in payload:  # an entity of mem0's entity store, not a memory
        _add_entity(out, payload)
        return
    vec = None
    if vector is not None:
        vec = np.asarray(vector, dtype=np.float64)
        if vec.ndim != 1 or not len(vec) or not np.isfinite(vec).all() or not np.any(vec):
            raise InputError(f"point {memory_id!r}: field 'vector': not a usable embedding", file=out.where)
    out.memories[str(memory_id)] = Point(payload, vec)


def _add_entity(out: Vectors, payload: dict[str, Any]) -> None:
    name, linked = payload.get("data"), payload.get("linked_memory_ids")
    if not isinstance(name, str) or not name.strip() or not isinstance(linked, list):
        return
    for memory_id in linked:
        names = out.entities.setdefault(str(memory_id), [])
        if name not in names:
            names.append(name)


def one_space(out: Vectors) -> None:
    """Keep the embeddings of the most common dimension: a store never mixes two models."""
    dims = Counter(len(p.vector) for p in out.memories.values() if p.vector is not None)
    if len(dims) <= 1:
        return
    keep = dims.most_common(1)[0][0]
    dropped = 0
    for p in out.memories.values():
        if p.vector is not None and len(p.vector) != keep:
            p.vector, dropped = None, dropped + 1
    out.left_out.append(
        f"{counted(dropped, 'embedding')} of another dimension than {keep} (another embedding model) not carried over"
    )


def _read_sqlite(path: Path) -> Vectors:
    out = Vectors(str(path), path.stem)
    try:
        conn = open_read_only(path)
        try:
            cols = {row[1] for row in conn.execute("PRAGMA table_info(vectors)")}
            if not {"id", "vector", "payload"} <= cols:
                raise InputError(
                    f"a SQLite database without mem0's table vectors(id, vector, payload); expected {EXPECTED}",
                    file=str(path),
                )
            rows = conn.execute("SELECT id, vector, payload FROM vectors ORDER BY rowid").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"not a SQLite database ({exc}); expected {EXPECTED}", file=str(path)) from None
    for memory_id, blob, payload in rows:
        if not isinstance(blob, bytes) or len(blob) % 4:
            raise InputError(f"point {memory_id!r}: field 'vector': not float32 bytes", file=str(path))
        try:
            decoded = json.loads(payload)
        except (TypeError, json.JSONDecodeError):
            raise InputError(f"point {memory_id!r}: field 'payload': not JSON", file=str(path)) from None
        _add(out, memory_id, decoded, np.frombuffer(blob, dtype="<f4"))
    entities = path.with_name(path.stem + "_entities.db")
    if entities.is_file():
        out.entities = _read_sqlite(entities).entities
    one_space(out)
    return out


def _read_faiss(path: Path, docstores: list[Path]) -> Vectors:
    main = next((p for p in docstores if p.stem == "mem0"), None) or next(
        (p for p in docstores if not p.stem.endswith("_entities")), docstores[0]
    )
    out = Vectors(str(path), main.stem)
    for doc in [main, *(p for p in docstores if p.stem == main.stem + "_entities")]:
        try:
            data = json.loads(doc.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"cannot read FAISS docstore ({exc})", file=str(doc)) from None
        if not isinstance(data, dict) or not isinstance(data.get("docstore"), dict):
            raise InputError(
                'expected a FAISS docstore {"docstore": {...}, "index_to_id": {...}}', file=str(doc)
            )
        for memory_id, payload in data["docstore"].items():
            _add(out, memory_id, payload, None)
        if doc is main:
            rows = _faiss_flat(main.with_suffix(".faiss"))
            index_to_id = data.get("index_to_id")
            index_to_id = index_to_id if isinstance(index_to_id, dict) else {}
            for row, memory_id in index_to_id.items():
                point = out.memories.get(str(memory_id))
                if rows is not None and point is not None and str(row).isdigit() and int(row) < len(rows):
                    _add(out, memory_id, point.payload, rows[int(row)])
    if out.memories and not any(p.vector is not None for p in out.memories.values()):
        out.left_out.append(
            f"embeddings in {main.with_suffix('.faiss')} not carried over (not a flat FAISS index)"
        )
    one_space(out)
    return out


_FLAT = (b"IxFI", b"IxF2", b"IxFl")  # IndexFlatIP, IndexFlatL2, IndexFlat


def _faiss_flat(path: Path) -> np.ndarray | None:
    """The vectors of a flat FAISS index file, one row per stored vector, or None."""
    try:
        data = path.read_bytes()
        if data[:4] not in _FLAT:
            return None
        d, ntotal = struct.unpack_from("<iq", data, 4)
        offset = 4 + 4 + 8 + 8 + 8 + 1
        (metric,) = struct.unpack_from("<i", data, offset)
        offset += 4 + (4 if metric > 1 else 0)  # metrics past L2 carry a float argument
        (size,) = struct.unpack_from("<Q", data, offset)
        offset += 8
        n = d * ntotal
        if d <= 0 or ntotal < 0 or size not in (n, 4 * n) or len(data) < offset + 4 * n:
            return None  # floats counted as floats (older FAISS) or as code bytes (newer)
        return np.frombuffer(data, dtype="<f4", count=n, offset=offset).reshape(ntotal, d)
    except (OSError, struct.error, ValueError):
        return None


def _read_qdrant(path: Path, collection: str | None = None) -> Vectors:
    out = Vectors(str(path), collection or "mem0")
    names = qdrant_local.collections(path)
    memories = [n for n in names if not n.endswith("_entities")]
    name = collection or ("mem0" if "mem0" in names else (memories[0] if len(memories) == 1 else None))
    if name not in names:
        raise InputError(
            f"no collection {collection or 'mem0'!r} among {', '.join(names) or 'none'};"
            f" to read another, give --vectors {path}/collection/NAME",
            file=str(path),
        )
    out.collection = name
    for point_id, payload, vector in qdrant_local.points(path, name):
        _add(out, point_id, payload, vector)
    if f"{name}_entities" in names:
        for point_id, payload, _ in qdrant_local.points(path, f"{name}_entities", vectors=False):
            _add(out, point_id, payload, None)
    one_space(out)
    return out
