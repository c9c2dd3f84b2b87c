"""What an import writes and an export reads beyond the fact records (`store.imports`):
new facts with their words, entities and embeddings, the flags and evidence a sync
brings for facts already here, and the checks an import makes before it writes.

Writes join the caller's transaction (`Store.transaction`): an import is one, all of it
or none of it.
"""

from __future__ import annotations

import abc
import json
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from synapse_tui.core.store.arrays import event_blob
from synapse_tui.core.store.dialect import SQLITE, Dialect
from synapse_tui.core.store.schema import FACTS_COLUMNS


class NewFact(Protocol):
    """A checked interchange fact, as the store inserts it (ingest's `ParsedFact`)."""

    id: str
    text: str
    created_at: str
    created_ts: float
    tier: str
    r: int
    s: int
    reinforced_at: list[str] | None
    reinforced_ts: list[float]
    reinforcement_count: int | None
    supersedes: str | None
    entities: list[str] | None
    note: str | None
    provenance: dict[str, Any] | None
    signature: dict[str, Any] | None
    embedding: np.ndarray | None
    extra: dict[str, Any]
    deleted: bool
    deleted_ts: float | None
    expired: bool

    @property
    def o1_count(self) -> int | None: ...


# the columns `insert` gives a new fact, in the order of its rows: the table's, but the
# resolved `supersedes` (`link_supersessions` fills it once every row is in)
FACT_COLUMNS = tuple(c for c in FACTS_COLUMNS if c != "supersedes_pos")


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


# how many provenance objects one `json.loads` parses: the whole source at once would hold
# a second copy of its provenance text (330 MB at a million facts) for one call
PARSE_BATCH = 4096


def parse_objects(texts: Sequence[str]) -> list[Any]:
    """Each of `texts` parsed, a batch joined into one array per `json.loads`: the decoder
    then makes each key once per batch, and is called once per batch, about half the time
    of one call each. Each text must be one JSON value, as the database's JSON check passed
    it (json_extract raises on malformed JSON, `IS JSON OBJECT` is false): joined, such
    texts keep their bounds, where others could join into other values. A batch that fails
    all the same (or gives another count of values) is parsed text by text, so it fails as
    that text's own parse would."""
    out: list[Any] = []
    for start in range(0, len(texts), PARSE_BATCH):
        batch = texts[start : start + PARSE_BATCH]
        try:
            values = json.loads("[" + ",".join(batch) + "]")
        except ValueError:
            values = None
        if not isinstance(values, list) or len(values) != len(batch):
            values = [json.loads(text) for text in batch]
        out.extend(values)
    return out


def as_sqlite(value: Any) -> Any:
    """A JSON value as SQLite's json_extract returns it: true and false as 1 and 0, an
    object or array as its minified JSON text, anything else as it is."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return value


class Imports(abc.ABC):
    """The facts table as imports and syncs write it. The word index and a sync's typed
    read of provenance are each database's own: abstract here, a file's in sqlite/parts.py,
    a server's in postgres/store.py."""

    def __init__(self, conn: Any, dialect: Dialect = SQLITE) -> None:
        self._conn: Any = conn  # sqlite3's, or a server's (postgres/dialect.Connection)
        self._dialect = dialect  # the spellings the two databases read differently

    # -- what an import checks first ----------------------------------------------------

    def positions(self) -> dict[str, int]:
        """Every fact's position (from 0) by id."""
        # fetchall: a server's rows come in one batch, not one driver call each (1 s at 100,000)
        return {fid: pos - 1 for fid, pos in self._conn.execute("SELECT id, pos FROM facts").fetchall()}

    def ids(self) -> set[str]:
        """Every fact's id."""
        return {row[0] for row in self._conn.execute("SELECT id FROM facts")}

    def next_position(self) -> int:
        """The position (from 0) the next fact takes."""
        return self._conn.execute("SELECT coalesce(max(pos), 0) FROM facts").fetchone()[0]

    def supersession_ids(self) -> tuple[list[str], list[str | None]]:
        """Each fact's id and the id it names in `supersedes`, by position."""
        n = self.next_position()
        ids: list[Any] = [None] * n
        supersedes: list[str | None] = [None] * n
        for pos, fid, sup in self._conn.execute("SELECT pos, id, supersedes FROM facts").fetchall():
            ids[pos - 1], supersedes[pos - 1] = fid, sup
        return ids, supersedes

    def model_dimension(self) -> int | None:
        """The dimension of the store's model embeddings, None when it holds none."""
        row = self._conn.execute(
            "SELECT length(vec) / 4 FROM embeddings WHERE kind = 'model' LIMIT 1"
        ).fetchone()
        return None if row is None else row[0]

    def model_embeddings(self) -> int:
        """How many facts carry an embedding that came with them (not a lexical one)."""
        return self._conn.execute("SELECT count(*) FROM embeddings WHERE kind = 'model'").fetchone()[0]

    def with_model_embedding(self, fact_ids: Sequence[str]) -> int:
        """How many of `fact_ids` carry a model embedding."""
        return self._conn.execute(
            "SELECT count(*) FROM facts JOIN embeddings ON embeddings.pos = facts.pos AND kind = 'model'"
            f" WHERE {self._dialect.in_list('facts.id')}",
            (self._dialect.list_arg(fact_ids),),
        ).fetchone()[0]

    def not_deleted(self, fact_ids: Sequence[str]) -> int:
        """How many of `fact_ids` are here and not flagged deleted."""
        return self._conn.execute(
            f"SELECT count(*) FROM facts WHERE deleted = 0 AND {self._dialect.in_list('id')}",
            (self._dialect.list_arg(fact_ids),),
        ).fetchone()[0]

    def from_source(self, system: str) -> list[tuple]:
        """The facts an adapter of `system` brought, in store order: id, x-source-id,
        x-source-version (1 when absent), text, note, whether nothing supersedes it,
        whether it is flagged deleted, and its provenance (parsed whole). The two provenance
        values are typed as SQLite's json_extract gives them (a boolean as 0 or 1, an object
        or array as its minified JSON text), on either backend.

        What a sync reads first, for every fact of its source (15,435 for ruff's Markdown):
        one statement reads the five columns, the provenance is parsed a few thousand rows
        to one `json.loads` (its keys then made once per batch, not once per fact), the two
        values taken from the parsed object, and "nothing supersedes it" is one set of the
        ids some fact names, read once from the index on `supersedes`."""
        rows = self._source_rows(system)
        if not rows:
            return []
        superseded = {
            sup
            for (sup,) in self._conn.execute(
                "SELECT DISTINCT supersedes FROM facts WHERE supersedes IS NOT NULL"
            ).fetchall()
        }
        out: list[tuple] = []
        append = out.append
        provenances = parse_objects([row[4] for row in rows])
        for (fid, text, note, deleted, _), prov in zip(rows, provenances, strict=True):
            record = prov.get("x-source-id")
            version = prov.get("x-source-version")
            append(
                (
                    fid,
                    record if type(record) is str else as_sqlite(record),
                    1 if version is None else version if type(version) is int else as_sqlite(version),
                    text,
                    note,
                    fid not in superseded,
                    deleted,
                    prov,
                )
            )
        return out

    @abc.abstractmethod
    def _source_rows(self, system: str) -> list[tuple]:
        """id, text, note, deleted and provenance (its JSON text) of each fact whose
        provenance is a JSON object with `x-source` the string `system`, in store order."""

    # -- writing ------------------------------------------------------------------------

    def insert(self, facts: Sequence[NewFact], signed: Sequence[tuple[int, str | None]], start: int) -> None:
        """Insert `facts` at positions from `start` (from 0) on, with their words, entity
        mentions, embeddings and deletion instants; `signed`: each one's signature state
        and, when valid, its key."""
        conn = self._conn
        first = start + 1  # positions are 1-based in SQL
        rows = []
        for i, (f, (state, key)) in enumerate(zip(facts, signed, strict=True)):
            events = event_blob(f.created_ts, f.reinforced_ts if f.o1_count is None else [])
            rows.append(
                (
                    first + i,
                    f.id,
                    f.text,
                    f.created_at,
                    f.created_ts,
                    f.tier,
                    f.r,
                    f.s,
                    events,
                    _json(f.reinforced_at),
                    f.o1_count if f.o1_count is not None else None,
                    f.reinforcement_count if f.reinforced_at is not None else None,
                    f.supersedes,
                    f.note,
                    _json(f.entities),
                    _json(f.provenance),
                    _json(f.signature),
                    state,
                    key,
                    _json(f.extra) if f.extra else None,
                    int(f.deleted),
                )
            )
        self._dialect.insert_rows(conn, "facts", FACT_COLUMNS, rows)
        # when each was flagged, as a sync records it (meta `deleted.at.ID`, epoch seconds),
        # and why, where its source's TTL removed it (`deleted.why.ID`, as flag_deleted writes)
        conn.executemany(
            self._dialect.upsert("meta", ("key", "value"), "key", "VALUES (?, ?)"),
            [(f"deleted.at.{f.id}", json.dumps(f.deleted_ts)) for f in facts if f.deleted_ts is not None]
            + [(f"deleted.why.{f.id}", json.dumps("expired")) for f in facts if f.expired],
        )
        self._index_words([(first + i, f.id, f.text) for i, f in enumerate(facts)])
        mentions = []
        for i, f in enumerate(facts):
            seen: set[str] = set()
            for name in f.entities or []:
                key = name.strip().casefold()
                if key not in seen:
                    seen.add(key)
                    mentions.append((first + i, key, name.strip()))
        # each entity once, then its id looked up once: an import names a few thousand
        # entities in hundreds of thousands of mentions
        keys = list(dict.fromkeys(m[1] for m in mentions))
        conn.executemany(
            self._dialect.insert_ignore("entities", ("key",), "VALUES (?)"), [(key,) for key in keys]
        )
        eids = dict(
            conn.execute(
                f"SELECT key, eid FROM entities WHERE {self._dialect.in_list('key')}",
                (self._dialect.list_arg(keys),),
            )
        )
        self._dialect.insert_rows(
            conn,
            "mentions",
            ("pos", "eid", "spelling"),
            [(pos, eids[key], spelling) for pos, key, spelling in mentions],
        )
        conn.executemany(
            "INSERT INTO embeddings (pos, kind, vec) VALUES (?, 'model', ?)",
            [(first + i, f.embedding.tobytes()) for i, f in enumerate(facts) if f.embedding is not None],
        )

    @abc.abstractmethod
    def _index_words(self, rows: list[tuple[int, str, str]]) -> None:
        """Add new facts (position, id, text) to the word index."""

    def link_supersessions(self) -> None:
        """Point each fact not yet linked at the position of the fact it supersedes (an id
        imported later links it then)."""
        self._conn.execute(
            "UPDATE facts SET supersedes_pos = (SELECT f2.pos FROM facts f2"
            " WHERE f2.id = facts.supersedes) WHERE supersedes IS NOT NULL"
            " AND supersedes_pos IS NULL"
        )

    def flag_deleted(
        self, fact_ids: Sequence[str], now: float, deleted_at: dict[str, float], expired: Sequence[str]
    ) -> int:
        """Flag `fact_ids` deleted at their source, recording when (`deleted_at`, else
        `now`) and, for `expired` ones, that their source's TTL removed them; how many were
        not flagged before."""
        conn = self._conn
        ids = self._dialect.list_arg(fact_ids)
        # when each was flagged (meta `deleted.at.ID`: epoch seconds), so "as of" an
        # instant shows what was deleted by then; one row per id, so SQL takes no JSON apart
        conn.executemany(
            self._dialect.upsert(
                "meta",
                ("key", "value"),
                "key",
                "SELECT 'deleted.at.' || id, ? FROM facts WHERE deleted = 0 AND id = ?",
            ),
            [(json.dumps(deleted_at.get(fid, now)), fid) for fid in dict.fromkeys(fact_ids)],
        )
        # why, where the source says it was not deleted by its agent (meta `deleted.why.ID`:
        # "expired", a LangGraph row its TTL removed)
        conn.execute(
            self._dialect.upsert(
                "meta",
                ("key", "value"),
                "key",
                f"SELECT 'deleted.why.' || id, '\"expired\"' FROM facts WHERE deleted = 0 AND {self._dialect.in_list('id')}",
            ),
            (self._dialect.list_arg(expired),),
        )
        return conn.execute(
            f"UPDATE facts SET deleted = 1 WHERE deleted = 0 AND {self._dialect.in_list('id')}",
            (ids,),
        ).rowcount

    def restore(self, fact_ids: Sequence[str]) -> int:
        """Clear the deleted flag of `fact_ids`, whose source holds them again, with when and
        why it was set; how many were flagged."""
        keys = [f"deleted.{what}.{fid}" for fid in fact_ids for what in ("at", "why")]
        self._conn.execute(
            f"DELETE FROM meta WHERE {self._dialect.in_list('key')}", (self._dialect.list_arg(keys),)
        )
        return self._conn.execute(
            f"UPDATE facts SET deleted = 0 WHERE deleted = 1 AND {self._dialect.in_list('id')}",
            (self._dialect.list_arg(fact_ids),),
        ).rowcount

    def provenance(self, fact_id: str) -> dict[str, Any]:
        """A fact's provenance as stored ({} when it has none)."""
        (stored,) = self._conn.execute("SELECT provenance FROM facts WHERE id = ?", (fact_id,)).fetchone()
        return json.loads(stored) if stored else {}

    def set_provenance(self, fact_id: str, provenance: dict[str, Any]) -> None:
        self._conn.execute(
            "UPDATE facts SET provenance = ? WHERE id = ?",
            (json.dumps(provenance, ensure_ascii=False), fact_id),
        )

    # -- what an export adds to the records ---------------------------------------------

    def model_vectors(self) -> dict[int, bytes]:
        """The model embeddings (float32 bytes) by position (from 0)."""
        return {
            pos - 1: vec
            for pos, vec in self._conn.execute("SELECT pos, vec FROM embeddings WHERE kind = 'model'")
        }

    def given_counts(self) -> dict[int, int]:
        """The reinforcement count a fact came with beside its list of times, by position (from 0)."""
        rows = self._conn.execute("SELECT pos, count_given FROM facts WHERE count_given IS NOT NULL")
        return {pos - 1: count for pos, count in rows}

    def deleted(self) -> dict[str, float | None]:
        """The facts flagged deleted, by id: when (epoch seconds), None where unknown."""
        out: dict[str, float | None] = dict.fromkeys(
            (row[0] for row in self._conn.execute("SELECT id FROM facts WHERE deleted = 1")), None
        )
        for fid, at in self._conn.execute(
            "SELECT substr(m.key, 12), m.value FROM meta m JOIN facts f ON f.id = substr(m.key, 12)"
            " WHERE m.key LIKE 'deleted.at.%' AND f.deleted = 1"
        ):
            out[fid] = json.loads(at)
        return out
