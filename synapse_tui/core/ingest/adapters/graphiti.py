"""Graphiti (SPEC 9): a dump of a temporal knowledge graph's entity edges, one fact each.

DUMP_DIR holds `edges.jsonl`: one `EntityEdge.model_dump(mode="json")` per line (a JSON
list is accepted too), and optionally `nodes.jsonl` (EntityNode) for entity names and
`episodes.jsonl` (EpisodicNode) for episode times; the README shows the few lines that
write them from a running Graphiti. Field names and formats are those of graphiti-core
0.31 (`edges.py`, `nodes.py`). What the mapping decides, and why:

- An edge is a fact: `fact` its text, `created_at` (when Graphiti wrote it) its creation,
  `group_id` its note (none for the default group, which Graphiti names "" on Neo4j and
  Kuzu), the names of its two nodes its entities, `fact_embedding` carried
  over (one dimension for the whole dump).
- Graphiti appends an episode to `episodes` each time an episode re-asserts an edge: every
  episode beyond the first is a corroboration, and a reinforcement at that episode's
  `valid_at` (when the episode happened). Without episodes.jsonl those times are unknown:
  the corroborations stay, the reinforcements are left out rather than invented.
- Graphiti never deletes a contradicted edge: it sets `invalid_at` / `expired_at` and
  writes the new edge, whose `valid_at` becomes the old one's `invalid_at`; it does not
  record which edge that was. So a successor is named only when exactly one newer edge
  between the same two entities (either direction) starts at the old `invalid_at`; with
  none there, the one edge sharing an entity that does ("works at Acme" by "works at
  Globex": Graphiti invalidates across pairs too), when exactly one fits. Otherwise
  nothing is guessed: the old fact stays visibly invalidated at its source (the flag
  `invalidated`, from `x-invalidated-at` in its provenance: its `invalid_at`, else its
  `expired_at`), and `left out` says why no successor was named.
- An edge gone from a later dump (Graphiti removed its episode) is reported deleted, but
  only within the group ids the dump holds: a dump of one group says nothing of others.
- An edge already in the store that a later dump shows with episodes it had not counted
  (`x-graphiti-episodes` records the ones it did) brings those as Evidence: a
  corroboration each, and a reinforcement at each one's time where episodes.jsonl gives
  it; sync adds them on top of the fact's triage. An episode gone from an edge changes
  nothing here (history matters) and stays counted, so it is never counted twice.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synapse_tui.core.base.clock import format_time, parse_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.jsonl import json_problem
from synapse_tui.core.graph.edges import validate_embedding
from synapse_tui.core.ingest.adapters import (
    Evidence,
    KnownFact,
    Snapshot,
    errors_at,
    fact_id,
    own_key,
    require_folder,
    source_provenance,
)
from synapse_tui.core.ingest.interchange import ParsedFact, Progress, parse_line, read_jsonl
from synapse_tui.core.store.db import INVALIDATED_AT

SYSTEM = "graphiti"
EXPECTED = "a Graphiti dump folder holding edges.jsonl (one EntityEdge.model_dump(mode='json') per line)"
EDGE_FIELDS = ("uuid", "group_id", "source_node_uuid", "target_node_uuid", "created_at", "name", "fact")
_TIMES = ("valid_at", "invalid_at", "expired_at", "reference_time")
GROUP = own_key(SYSTEM, "group_id")
EPISODES = own_key(SYSTEM, "episodes")  # the episode uuids this fact's evidence counts
# Graphiti's edges do not name the embedder that made fact_embedding; one Graphiti graph
# has one embedder, so every dump is taken as this one space (SPEC 9, see sync.py).
SPACE = "graphiti"


@dataclass
class _Edge:
    line: int
    raw: dict[str, Any]
    created: float
    times: dict[str, float | None]  # the optional times, parsed
    episodes: list[str]  # distinct, in order
    supersedes: str | None = None
    invalidated: bool = False  # marked invalid or expired, and no successor named

    @property
    def uuid(self) -> str:
        return self.raw["uuid"]


def read(source: Path, *, known: list[KnownFact] | None = None, progress: Progress | None = None) -> Snapshot:
    """The dump mapped onto interchange facts (see the module docstring).

    `progress(bytes read, size)` is called while edges.jsonl is read, the slow part."""
    folder = require_folder(source, EXPECTED)
    name = str(folder)
    path = next((folder / f for f in ("edges.jsonl", "edges.json") if (folder / f).is_file()), None)
    if path is None:
        raise InputError(f"holds no edges.jsonl; expected {EXPECTED}", file=name)
    left_out: list[str] = []
    edges = _edges(path, progress)
    if not edges:
        raise InputError(f"holds no edges; expected {EXPECTED}", file=str(path))
    names = _side_file(folder / "nodes.jsonl", "an EntityNode", ("uuid", "name"), "name")
    times = _side_file(folder / "episodes.jsonl", "an EpisodicNode", ("uuid", "valid_at"), "valid_at")
    _supersessions(edges, left_out)
    facts = [_fact(path, e, names, times) for e in edges]
    _say_what_is_missing(edges, names, times, left_out)
    groups = {e.raw["group_id"] for e in edges}
    present = {e.uuid for e in edges}
    deleted = {
        k.id
        for k in known or []
        if k.provenance.get(GROUP) in groups and k.record not in present and not k.deleted
    }
    space = SPACE if any(f.embedding is not None for f in facts) else None
    evidence = _new_episodes(edges, known or [], times, left_out)
    return Snapshot(SYSTEM, name, facts, deleted, left_out, space, evidence)


def _objects(path: Path, progress: Progress | None = None) -> Iterator[tuple[int, Any]]:
    """(line, object) of a JSON Lines file, or of each element of a file holding one JSON list."""
    name = str(path)
    with open(path, "rb") as fh:
        head = fh.read(4096).lstrip()
    if not head.startswith(b"["):
        yield from read_jsonl(path, progress)
        return
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError("not valid UTF-8", file=name) from None
    decoder = json.JSONDecoder()
    at = text.index("[") + 1
    line, counted = 1, 0
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        if at < len(text) and text[at] == "]":
            return
        line, counted = line + text.count("\n", counted, at), at
        try:
            obj, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise InputError(json_problem(exc), file=name, line=exc.lineno) from None
        yield line, obj


def _checker(path: Path, line: int, shape: str, obj: Any, required: tuple[str, ...]):
    err = errors_at(path, line)
    if not isinstance(obj, dict):
        raise err(None, f"must be a JSON object, {shape} (model_dump(mode='json'))")
    for key in required:
        if obj.get(key) is None:
            raise err(key, f"is missing; each line must be {shape} (model_dump(mode='json'))")
    return err


def _time(obj: dict, key: str, err) -> float | None:
    """An optional time of `obj`, parsed (None when it is missing or null)."""
    return None if obj.get(key) is None else _parsed_time(obj, key, err)


def _parsed_time(obj: dict, key: str, err) -> float:
    try:
        return parse_time(obj[key])
    except ValueError as exc:
        raise err(key, str(exc)) from None


def _edges(path: Path, progress: Progress | None) -> list[_Edge]:
    edges: list[_Edge] = []
    seen: dict[str, int] = {}
    dim: tuple[int, int] | None = None
    for line, obj in _objects(path, progress):
        err = _checker(path, line, "an EntityEdge", obj, EDGE_FIELDS)
        for key in EDGE_FIELDS:
            if key == "group_id" and not isinstance(obj[key], str):  # "" is Graphiti's default group
                raise err(key, f"must be a string, got {obj[key]!r}")
            if key not in ("created_at", "group_id") and (
                not isinstance(obj[key], str) or not obj[key].strip()
            ):
                raise err(key, f"must be a non-empty string, got {obj[key]!r}")
        if obj["uuid"] in seen:
            raise err("uuid", f"duplicate edge {obj['uuid']!r} (first on line {seen[obj['uuid']]})")
        seen[obj["uuid"]] = line
        episodes = obj.get("episodes") or []
        if not isinstance(episodes, list) or not all(isinstance(x, str) for x in episodes):
            raise err("episodes", f"must be a list of episode uuids, got {episodes!r}")
        if not isinstance(obj.get("attributes") or {}, dict):
            raise err("attributes", f"must be a JSON object, got {obj['attributes']!r}")
        vec = obj.get("fact_embedding")
        if vec is not None:
            problem = validate_embedding(vec, dim[0] if dim else None)
            if problem and dim and len(vec) != dim[0]:
                problem = f"has dimension {len(vec)}, but line {dim[1]} has {dim[0]}"
            if problem:
                raise err("fact_embedding", problem)
            dim = dim or (len(vec), line)
        created = _parsed_time(obj, "created_at", err)  # required: `_checker` saw it
        times = {key: _time(obj, key, err) for key in _TIMES}
        edges.append(_Edge(line, obj, created, times, list(dict.fromkeys(episodes))))
    return edges


def _side_file(path: Path, shape: str, required: tuple[str, str], key: str) -> dict[str, Any] | None:
    """uuid -> name (nodes) or uuid -> (time, source description) (episodes); None when
    the file is not there."""
    if not path.is_file():
        return None
    out: dict[str, Any] = {}
    for line, obj in _objects(path):
        err = _checker(path, line, shape, obj, required)
        if key == "valid_at":
            described = obj.get("source_description")
            out[obj["uuid"]] = (_time(obj, key, err), described if isinstance(described, str) else None)
        elif isinstance(obj[key], str) and obj[key].strip():
            out[obj["uuid"]] = obj[key].strip()
        else:
            raise err(key, f"must be a non-empty string, got {obj[key]!r}")
    return out


def _supersessions(edges: list[_Edge], left_out: list[str]) -> None:
    """Name the successor of each invalidated edge where exactly one newer edge fits;
    flag the rest `invalidated` (see the module docstring)."""
    between: dict[frozenset[str], list[_Edge]] = defaultdict(list)
    touching: dict[str, list[_Edge]] = defaultdict(list)
    for e in edges:
        between[_ends(e)].append(e)
        for n in _ends(e):
            touching[n].append(e)
    unknown, several, clashes = 0, 0, 0
    for old in sorted(edges, key=lambda e: (e.created, e.uuid)):
        invalid, expired = old.times["invalid_at"], old.times["expired_at"]
        if invalid is None and expired is None:
            continue
        fits = [
            e
            for e in between[_ends(old)]
            if e.created > old.created and invalid is not None and e.times["valid_at"] == invalid
        ]
        if not fits and invalid is not None:
            fits = list(
                {
                    e.uuid: e
                    for n in _ends(old)
                    for e in touching[n]
                    if e.created > old.created
                    and e.times["valid_at"] == invalid
                    and (expired is None or e.created <= expired)
                }.values()
            )
        if len(fits) == 1 and fits[0].supersedes is None:
            fits[0].supersedes = fact_id(SYSTEM, old.uuid)
            continue
        old.invalidated = True
        if len(fits) > 1:
            several += 1
        elif fits:
            clashes += 1
        else:
            unknown += 1
    flagged = "flagged invalidated, its invalid_at / expired_at in provenance"
    if unknown:
        left_out.append(
            f"{unknown} edge(s) marked invalid or expired have no newer edge known to have invalidated"
            " them (one between the same two entities, or sharing an entity, whose valid_at is their"
            f" invalid_at): no successor named; {flagged}"
        )
    if several:
        left_out.append(
            f"{several} edge(s) marked invalid have several newer edges that could have invalidated"
            " them (each starting at their invalid_at), and Graphiti does not record which did:"
            f" no successor named (not guessed); {flagged}"
        )
    if clashes:
        left_out.append(
            f"{clashes} invalidated edge(s) share their newer edge with another, and a fact names one"
            f" fact it supersedes: no successor named; {flagged}"
        )


def _ends(e: _Edge) -> frozenset[str]:
    return frozenset((e.raw["source_node_uuid"], e.raw["target_node_uuid"]))


def _fact(path: Path, e: _Edge, names: dict | None, times: dict | None) -> ParsedFact:
    raw = e.raw
    own: dict[str, Any] = {
        "name": raw["name"],
        "group_id": raw["group_id"],
        "source_node_uuid": raw["source_node_uuid"],
        "target_node_uuid": raw["target_node_uuid"],
        "episodes": e.episodes,
        **{key: format_time(t) for key, t in e.times.items() if t is not None},  # in _TIMES' order
        "attributes": raw.get("attributes") or None,
    }
    provenance = source_provenance(SYSTEM, e.uuid, **own)
    if e.invalidated:  # the flag `invalidated` (SPEC 9): invalid at the source, no successor named
        at = next(t for t in (e.times["invalid_at"], e.times["expired_at"]) if t is not None)
        provenance[INVALIDATED_AT] = format_time(at)
    obj: dict[str, Any] = {
        "id": fact_id(SYSTEM, e.uuid),
        "text": raw["fact"],
        "created_at": format_time(e.created),
        "corroborations": max(len(e.episodes) - 1, 0),
        "provenance": provenance,
    }
    if raw["group_id"]:  # Graphiti's default group ("") is no note
        obj["note"] = raw["group_id"]
    if times is not None:
        later = [times[ep][0] for ep in e.episodes[1:] if ep in times]
        if later:
            obj["reinforced_at"] = [format_time(t) for t in later]
        if e.episodes and e.episodes[0] in times and times[e.episodes[0]][1]:
            # who said it first: Graphiti's description of the episode's source
            provenance[own_key(SYSTEM, "source_description")] = times[e.episodes[0]][1]
    if names is not None:
        found = [names[u] for u in (raw["source_node_uuid"], raw["target_node_uuid"]) if u in names]
        if found:
            obj["entities"] = found
    if e.supersedes:
        obj["supersedes"] = e.supersedes
    if raw.get("fact_embedding") is not None:
        obj["embedding"] = raw["fact_embedding"]
    return parse_line(obj, errors_at(path, e.line), e.line)


def _new_episodes(
    edges: list[_Edge], known: list[KnownFact], times: dict | None, left_out: list[str]
) -> list[Evidence]:
    """Evidence for the known edges that gained episodes since they were counted."""
    counted = {k.id: k.provenance.get(EPISODES) for k in known}
    out: list[Evidence] = []
    untimed = shrunk = 0
    for e in edges:
        before = counted.get(fact_id(SYSTEM, e.uuid))
        if not isinstance(before, list):  # not in the store (or not counted by this reader)
            continue
        shrunk += any(ep not in e.episodes for ep in before)
        after = before + [ep for ep in e.episodes if ep not in before]
        if after == before:
            continue
        again = [ep for ep in after[1:] if ep not in before]  # the first episode only asserts
        at = [format_time(times[ep][0]) for ep in again if times is not None and ep in times]
        untimed += len(again) - len(at)
        out.append(Evidence(fact_id(SYSTEM, e.uuid), len(again), at, {EPISODES: after}, {EPISODES: before}))
    if untimed:
        left_out.append(
            f"{untimed} new re-assertion(s) of facts already here count as corroborations, but their"
            " episodes' times are unknown (no episodes.jsonl, or not in it): no reinforcements (not invented)"
        )
    if shrunk:
        left_out.append(
            f"{shrunk} edge(s) already here lost episodes at the source: nothing here changes"
            " (history matters), and their corroborations stay"
        )
    return out


def _say_what_is_missing(
    edges: list[_Edge], names: dict | None, times: dict | None, left_out: list[str]
) -> None:
    again = sum(max(len(e.episodes) - 1, 0) for e in edges)
    if names is None:
        left_out.append("no nodes.jsonl: entity names are missing (not invented)")
    else:
        unknown = {u for e in edges for u in (e.raw["source_node_uuid"], e.raw["target_node_uuid"])} - set(
            names
        )
        if unknown:
            left_out.append(
                f"{len(unknown)} node uuid(s) are not in nodes.jsonl: those entity names are missing"
            )
    if times is None and again:
        left_out.append(
            f"no episodes.jsonl: {again} re-assertion(s) count as corroborations, but their times are"
            " unknown, so no reinforcements (not invented)"
        )
    elif times is not None:
        unknown = {ep for e in edges for ep in e.episodes[1:]} - set(times)
        if unknown:
            left_out.append(
                f"{len(unknown)} episode uuid(s) are not in episodes.jsonl: corroborations without"
                " reinforcement times"
            )
    if not any(e.raw.get("fact_embedding") for e in edges):
        left_out.append("no fact_embedding in the dump (dump with with_embeddings=True to carry them over)")
