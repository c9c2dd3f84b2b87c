"""The interchange format (JSON Lines, SPEC section 4): validate, import, export.

Import is all or nothing: every line is checked before the first write, and the writes
happen in one transaction. What a line may hold (sizes, ranges, depth) is in `limits`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from synapse_tui.core.base import limits
from synapse_tui.core.base.clock import Clock, format_time, parse_time, source_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import InputError, PartialWrite
from synapse_tui.core.base.jsonl import json_line, read_jsonl, write_jsonl  # noqa: F401 (this module's API before the split)
from synapse_tui.core.base.textsafe import first_unsafe
from synapse_tui.core.graph.edges import normalise, validate_embedding
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.errors import describe
from synapse_tui.core.trust.score import in_cycle

if TYPE_CHECKING:
    from synapse_tui.core.graph.build import GraphUpdate

KNOWN_KEYS = (
    "id",
    "text",
    "created_at",
    "tier",
    "corroborations",
    "contradictions",
    "reinforced_at",
    "reinforcement_count",
    "supersedes",
    "entities",
    "note",
    "provenance",
    "signature",
    "embedding",
    "deleted",
    "dismissed",
)
TIERS = ("auto", "human", "signed")
_COUNTS = ("corroborations", "contradictions", "reinforcement_count")
_MAX_CHARS = {"text": limits.MAX_TEXT_CHARS} | dict.fromkeys(limits.NAME_FIELDS, limits.MAX_NAME_CHARS)

Progress = Callable[[int, int], None]


@dataclass
class ParsedFact:
    line: int
    id: str
    text: str
    created_at: str
    created_ts: float
    tier: str = "auto"
    r: int = 0
    s: int = 0
    reinforced_at: list[str] | None = None
    reinforced_ts: list[float] = field(default_factory=list)
    reinforcement_count: int | None = None
    supersedes: str | None = None
    entities: list[str] | None = None
    note: str | None = None
    provenance: dict[str, Any] | None = None
    signature: dict[str, Any] | None = None
    embedding: np.ndarray | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    deleted: bool = False  # deleted at its source (SPEC 9)
    deleted_ts: float | None = None  # when it was flagged, where known
    expired: bool = False  # deleted by its source's time-to-live, not its agent (SPEC 9)
    dismissed: list[tuple[str, str]] = field(default_factory=list)  # (kind, other): SPEC 13's dismissals

    @property
    def o1_count(self) -> int | None:
        """The O(1) form applies when a count came without the list of events."""
        return self.reinforcement_count if self.reinforced_at is None else None


def _int(obj: dict, key: str, minimum: int, err: Callable[[str, str], InputError]) -> int | None:
    if key not in obj:
        return None
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= limits.MAX_COUNT:
        raise err(
            key,
            f"must be an integer >= {minimum} and below {limits.MAX_COUNT + 1:,}, got {limits.brief(value)}",
        )
    return value


def _string(obj: dict, key: str, err: Callable[[str, str], InputError], required: bool = False) -> str | None:
    if key not in obj:
        if required:
            raise err(key, "is required")
        return None
    value = obj[key]
    if not isinstance(value, str) or not value.strip():
        raise err(key, f"must be a non-empty string, got {limits.brief(value)}")
    return value


def _required(obj: dict, key: str, err: Callable[[str, str], InputError]) -> str:
    """A string field that must be there."""
    if key not in obj:
        raise err(key, "is required")
    value = _string(obj, key, err)
    if value is None:  # pragma: no cover - present, so `_string` returned it or raised
        raise err(key, "is required")
    return value


def _time(value: Any, key: str, err: Callable[[str, str], InputError]) -> float:
    try:
        ts = parse_time(value)
    except ValueError as exc:
        raise err(key, str(exc)) from None
    why = limits.time_problem(ts)
    if why:
        raise err(key, f"{limits.brief(value)} {why}")
    return ts


def _plain(value: Any) -> bool:
    """A string, or a list of strings, in ASCII and short enough for any field: the
    common case, told apart without walking it (joining is one C call)."""
    if type(value) is str:
        return len(value) <= limits.MAX_NAME_CHARS and value.isascii()
    if type(value) is list:
        try:
            joined = "".join(value)
        except TypeError:
            return False
        return len(joined) <= limits.MAX_NAME_CHARS and joined.isascii()
    return False


def _check_sizes(obj: dict, err: Callable[[str | None, str], InputError]) -> None:
    """Every field within `limits`, before any field is read (the embedding is checked by
    `validate_embedding`, the counts by `_int`, each in their own words)."""
    plain_keys = _plain(list(obj))
    for key, value in obj.items():
        if key == "embedding" or (key in _COUNTS and type(value) is int):
            continue
        if plain_keys and _plain(value):
            continue
        if len(key) > limits.MAX_NAME_CHARS or limits.has_surrogate(key):
            raise err(None, f"the key {limits.brief(key)} is not a valid field name")
        why = limits.problem(value, _MAX_CHARS.get(key, limits.MAX_STRING_CHARS))
        if why:
            raise err(key, why)


def parse_line(obj: Any, err: Callable[[str | None, str], InputError], line: int) -> ParsedFact:
    """One interchange object, every field of SPEC 4 checked."""
    if not isinstance(obj, dict):
        raise err(None, "each line must be a JSON object")
    _check_sizes(obj, err)
    fid = _required(obj, "id", err)
    hidden = first_unsafe(fid)
    if hidden is not None:  # ids are typed (`show DB ID`) and shown bare in messages
        raise err(
            "id", f"holds the control or invisible character U+{ord(hidden):04X}; an id must be visible text"
        )
    text = _required(obj, "text", err)
    if "created_at" not in obj:
        raise err("created_at", "is required")
    created_at = obj["created_at"]
    created_ts = _time(created_at, "created_at", err)
    fact = ParsedFact(line=line, id=fid, text=text, created_at=created_at, created_ts=created_ts)
    if "tier" in obj:
        if obj["tier"] not in TIERS:
            raise err("tier", f"must be one of auto, human, signed, got {limits.brief(obj['tier'])}")
        fact.tier = obj["tier"]
    fact.r = _int(obj, "corroborations", 0, err) or 0
    fact.s = _int(obj, "contradictions", 0, err) or 0
    fact.reinforcement_count = _int(obj, "reinforcement_count", 1, err)
    if "reinforced_at" in obj:
        fact.reinforced_at, fact.reinforced_ts = _reinforced(obj["reinforced_at"], err)
    fact.supersedes = _string(obj, "supersedes", err)
    if fact.supersedes == fid:
        raise err("supersedes", "a fact cannot supersede itself (supersession cycle)")
    fact.note = _string(obj, "note", err)
    if "entities" in obj:
        fact.entities = _entities(obj["entities"], err)
    for key in ("provenance", "signature"):
        if key in obj and not isinstance(obj[key], dict):
            raise err(key, f"must be a JSON object, got {limits.brief(obj[key])}")
    fact.provenance = obj.get("provenance")
    fact.signature = _signature(obj.get("signature"), err)
    if "embedding" in obj:
        fact.embedding = _embedding(obj["embedding"], err)
    if "deleted" in obj:
        fact.deleted, fact.deleted_ts = _deleted(obj["deleted"], err)
        fact.expired = _expired(fact)
    if "dismissed" in obj:
        fact.dismissed = _dismissed(obj["dismissed"], err)
    fact.extra = {k: v for k, v in obj.items() if k not in KNOWN_KEYS}
    return fact


def _reinforced(value: Any, err: Callable[[str, str], InputError]) -> tuple[list[Any], list[float]]:
    """`reinforced_at`: the timestamps as given, and as instants."""
    if not isinstance(value, list):
        raise err("reinforced_at", f"must be a list of RFC 3339 timestamps, got {limits.brief(value)}")
    return list(value), [_time(v, "reinforced_at", err) for v in value]


def _entities(ents: Any, err: Callable[[str, str], InputError]) -> list[str]:
    """`entities`: non-empty names, at most `limits.MAX_ENTITIES`."""
    if not isinstance(ents, list) or not all(isinstance(e, str) and e.strip() for e in ents):
        raise err("entities", f"must be a list of non-empty strings, got {limits.brief(ents)}")
    if len(ents) > limits.MAX_ENTITIES:
        raise err("entities", f"names {len(ents):,} entities; the limit is {limits.MAX_ENTITIES:,}")
    return ents


def _signature(sig: dict[str, Any] | None, err: Callable[[str, str], InputError]) -> dict[str, Any] | None:
    """`signature` (already known to be an object): its alg, key and sig are strings."""
    if sig is not None:
        for part in ("alg", "key", "sig"):
            if not isinstance(sig.get(part), str):
                raise err("signature", f"needs string '{part}' (alg, key, sig), got {limits.brief(sig)}")
    return sig


def _expired(fact: ParsedFact) -> bool:
    """Whether a deleted fact was removed by its source's time-to-live, not its agent (SPEC
    9's `expired`): its provenance carries the source's `x-SYSTEM-expires-at` (a LangGraph
    row's), passed by the instant it was flagged. An export keeps both, so the flag
    survives a round trip; an unknown instant is not assumed to be after the expiry."""
    if not fact.deleted or fact.deleted_ts is None or not fact.provenance:
        return False
    for key, value in fact.provenance.items():
        if key.startswith("x-") and key.endswith("-expires-at"):
            try:
                return source_time(value) <= fact.deleted_ts
            except (TypeError, ValueError):
                return False
    return False


def _dismissed(value: Any, err: Callable[[str, str], InputError]) -> list[tuple[str, str]]:
    """`dismissed`: the suggestions dismissed on this fact, `{"kind", "other"}` each (SPEC 13:
    `other` the replacing fact's id, or the path gone)."""
    from synapse_tui.core.review.suggest import KINDS

    shape = f'must be a list of {{"kind": {" or ".join(KINDS)}, "other": text}}'
    if not isinstance(value, list):
        raise err("dismissed", f"{shape}, got {limits.brief(value)}")
    out = []
    for d in value:
        if not isinstance(d, dict) or set(d) != {"kind", "other"} or d["kind"] not in KINDS:
            raise err("dismissed", f"{shape}, got {limits.brief(d)}")
        if not isinstance(d["other"], str) or not d["other"].strip():
            raise err("dismissed", f"{shape}, got {limits.brief(d)}")
        out.append((d["kind"], d["other"]))
    return out


def _deleted(value: Any, err: Callable[[str, str], InputError]) -> tuple[bool, float | None]:
    """`deleted`: a flag, or the instant the fact was flagged (which implies it)."""
    if isinstance(value, bool):
        return value, None
    if isinstance(value, str):
        return True, _time(value, "deleted", err)
    raise err(
        "deleted", f"must be true, false or the RFC 3339 instant it was deleted, got {limits.brief(value)}"
    )


def _embedding(value: Any, err: Callable[[str, str], InputError]) -> np.ndarray:
    problem = validate_embedding(value, None)
    if problem:
        if isinstance(value, list) and any(isinstance(v, limits.NonFinite) for v in value):
            problem = "contains NaN or infinity, which is not JSON"
        raise err("embedding", problem)
    return normalise(np.asarray(value, dtype=np.float64)[None, :])[0].astype(np.float32)


def parse_file(path: str | os.PathLike[str], progress: Progress | None = None) -> list[ParsedFact]:
    """Every line of an interchange file, validated; the first bad one raises InputError."""
    name = str(path)
    facts: list[ParsedFact] = []
    seen: dict[str, int] = {}
    dim: tuple[int, int] | None = None
    for number, obj in read_jsonl(path, progress):

        def err(fld: str | None, msg: str, _n: int = number) -> InputError:
            return InputError(msg, file=name, line=_n, field=fld)

        fact = parse_line(obj, err, number)
        if fact.id in seen:
            raise err("id", f"duplicate id {fact.id!r} (first on line {seen[fact.id]})")
        seen[fact.id] = number
        if fact.embedding is not None:
            if dim is None:
                dim = (len(fact.embedding), number)
            elif len(fact.embedding) != dim[0]:
                raise err("embedding", f"has dimension {len(fact.embedding)}, but line {dim[1]} has {dim[0]}")
        facts.append(fact)
    return facts


@dataclass(frozen=True)
class ImportResult:
    imported: int
    warnings: list[str]
    new_positions: list[int]


def import_facts(
    store: Store,
    facts: list[ParsedFact],
    source: str,
    progress: Progress | None = None,
    after_insert: Callable[[Store, list[int]], None] | None = None,
    space: str | None = None,
    clock: Clock | None = None,
) -> ImportResult:
    """Add parsed facts in one transaction; refuse the lot on any conflict.

    `space` names the embedding space of the facts' embeddings (an adapter's source);
    None for an interchange file, which does not say which model made them.

    `after_insert(store, new_positions)` runs inside the same transaction (the graph
    update), so a failure there also leaves the store untouched. `clock` dates the audit
    entry of the dismissals the facts bring (default: SYNAPSE_NOW, else the wall clock).
    """
    store.check_health()  # a damaged store is refused before the first write, not after a commit

    def err(fact: ParsedFact, fld: str, msg: str) -> InputError:
        return InputError(msg, file=source, line=fact.line, field=fld)

    # Checked inside the write transaction: another writer (an agent) cannot slip a
    # conflicting id or chain in between the checks and the inserts.
    with store.transaction():
        existing = store.imports.positions()
        for fact in facts:
            if fact.id in existing:
                raise err(fact, "id", f"id {fact.id!r} is already in the store {store.path}")
        _check_dimension(store, facts, err)
        _check_space(store, facts, space, err)
        _check_cycles(store, facts, err)
        all_ids = set(existing) | {f.id for f in facts}
        warnings = [
            f"{source}:{fact.line}: supersedes unknown id {fact.supersedes!r} (kept, ignored for depth)"
            for fact in facts
            if fact.supersedes and fact.supersedes not in all_ids
        ]
        start = store.imports.next_position()
        positions = list(range(start, start + len(facts)))
        batch = 2000
        for i in range(0, len(facts), batch):
            chunk = facts[i : i + batch]
            store.imports.insert(chunk, _signed(chunk), start + i)
            if progress:
                progress(min(i + batch, len(facts)), len(facts))
        store.imports.link_supersessions()
        _dismiss(store, facts, clock)
        if after_insert:
            after_insert(store, positions)
    return ImportResult(len(facts), warnings, positions)


DISMISSED_BY = "source:import"  # the actor of the dismissals an interchange file brings


def _dismiss(store: Store, facts: list[ParsedFact], clock: Clock | None) -> None:
    """The dismissals the facts bring (an `export` of a store where people dismissed
    suggestions), as one audited batch: they stay dismissed here, and `undo` brings them
    back. Written in the import's transaction: all of it lands or none."""
    from synapse_tui.core.review.suggest_state import DISMISS, dismissed_entry

    rows: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        (f.id, {}, dismissed_entry(kind, other)) for f in facts for kind, other in f.dismissed
    ]
    if rows:
        now = (clock or Clock.from_option(None)).now()
        store.audit.append(DISMISSED_BY, DISMISS, format_time(now), rows, {})


def link_landed(store: Store, config: Config, landed: str, progress: Progress | None = None) -> GraphUpdate:
    """Bring the neighbour graph up to date after an import's facts have landed, in a
    transaction of its own (derived data: an interrupted update leaves the facts, and the
    next import finishes it). A failure here is not a refusal: the facts are in, so the
    PartialWrite says what landed (`landed`) and what did not."""
    from synapse_tui.core.graph import build

    try:
        with store.transaction():
            return build.update_graph(store, [], config, progress=progress)
    except Exception as exc:
        raise PartialWrite(
            f"{store.path}: {landed}, but the neighbour graph was not updated ({describe(exc)});"
            " the next import brings it up to date"
        ) from exc


def landed_facts(n: int) -> str:
    return f"{n} fact{'' if n == 1 else 's'} imported (committed)"


def _check_dimension(store: Store, facts: list[ParsedFact], err: Callable) -> None:
    dimension = store.imports.model_dimension()
    if dimension is None:
        return
    for fact in facts:
        if fact.embedding is not None and len(fact.embedding) != dimension:
            raise err(
                fact,
                "embedding",
                f"has dimension {len(fact.embedding)}, but the store's embeddings have {dimension}",
            )


def _check_space(store: Store, facts: list[ParsedFact], space: str | None, err: Callable) -> None:
    """One store, one embedding space (SPEC 9): once `embed` or an adapter has recorded the
    space of the store's embeddings, embeddings of another (or of an unnamed model) are refused."""
    from synapse_tui.core.graph.embed import recorded_space  # the model's name only; no torch

    first = next((f for f in facts if f.embedding is not None), None)
    recorded = recorded_space(store) if first is not None else None
    if recorded is not None and recorded != space:
        raise err(
            first,
            "embedding",
            f"the store's embeddings are those of {recorded}, and this file does not say which model"
            " made its own; one store never mixes two spaces (import it without embeddings, or into"
            " a store of its own)",
        )


def _check_cycles(store: Store, facts: list[ParsedFact], err: Callable) -> None:
    ids, sup_ids = store.imports.supersession_ids()
    held = len(ids)
    ids += [f.id for f in facts]
    sup_ids += [f.supersedes for f in facts]
    index = {fid: i for i, fid in enumerate(ids)}
    sup = np.fromiter((index.get(s, -1) if s else -1 for s in sup_ids), dtype=np.int64, count=len(ids))
    cyclic = in_cycle(sup)
    if cyclic.any():
        first = next(f for i, f in enumerate(facts, start=held) if cyclic[i])
        raise err(
            first,
            "supersedes",
            f"makes a supersession cycle ({first.id} -> {first.supersedes} -> ... -> {first.id})",
        )


def _signed(facts: list[ParsedFact]) -> list[tuple[int, str | None]]:
    """Each fact's signature state and, when valid, its signer's key."""
    from synapse_tui.core.ingest import signing  # cryptography: loaded by what imports, not by what reads

    out = []
    for f in facts:
        state = signing.verify(f.signature, f.id, f.created_at, f.text)
        key = (
            f.signature["key"].lower()
            if f.signature is not None and state == signing.SigState.VALID
            else None
        )
        out.append((int(state), key))
    return out


def _dismissals(store: Store) -> dict[str, list[dict[str, str]]]:
    """Fact id -> the suggestions people dismissed on it and have not undone (SPEC 13)."""
    from synapse_tui.core.review.suggest_state import dismissals

    out: dict[str, list[dict[str, str]]] = {}
    for kind, fid, other in sorted(dismissals(store).keys):
        out.setdefault(fid, []).append({"kind": kind, "other": other})
    return out


def export_facts(store: Store) -> Iterator[dict[str, Any]]:
    """The store as interchange objects, triage included, in import order."""
    vecs = store.imports.model_vectors()
    counts = store.imports.given_counts()
    deleted = {fid: True if at is None else format_time(at) for fid, at in store.imports.deleted().items()}
    dismissed = _dismissals(store)
    for rec in store.records():
        obj: dict[str, Any] = dict(rec.extra)
        obj.update(
            id=rec.id,
            text=rec.text,
            created_at=rec.created_at,
            tier=rec.tier,
            corroborations=rec.corroborations,
            contradictions=rec.contradictions,
        )
        if rec.reinforced_at is not None:
            obj["reinforced_at"] = rec.reinforced_at
        count = rec.reinforcement_count or counts.get(rec.pos)
        if count is not None:
            obj["reinforcement_count"] = count
        for key in ("supersedes", "note", "provenance", "signature"):
            if getattr(rec, key) is not None:
                obj[key] = getattr(rec, key)
        if rec.entities:
            obj["entities"] = rec.entities
        if rec.id in deleted:
            obj["deleted"] = deleted[rec.id]
        if rec.id in dismissed:
            obj["dismissed"] = dismissed[rec.id]
        if rec.pos in vecs:
            obj["embedding"] = np.frombuffer(vecs[rec.pos], dtype=np.float32).tolist()
        yield obj
