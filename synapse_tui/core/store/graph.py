"""The neighbour graph's tables as the graph reads and writes them (`store.graph`).

`core/graph/` computes and walks the graph (numpy, networkx, the files beside a store);
the statements that read its tables (facts, entities, mentions, semantic and NPMI edges,
the graph's entries in meta) are here, each a method named for what it answers. They are
read over the store's connection, so on a server they go where the store's own go.

The build (graph/build.py) reads and writes through these too; it hands `conn` on only to
graph/cache.py, which asks the stores where the update files live and whether they still
hold (`sqlite.store.database_file`, `postgres.store.server_schema` and `meta_version`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from synapse_tui.core.store.dialect import SQLITE, Dialect
from synapse_tui.core.store.schema import SEMANTIC_EDGES_B

_CHUNK = 500  # positions per IN (...) list
# each space's row count and last position: from the embeddings' index (m004), not the rows
SPACE_COUNTS = "SELECT kind, count(*), max(pos) FROM embeddings GROUP BY kind"


def _marks(n: int) -> str:
    return ",".join("?" * n)


def _chunks(items: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]


def graph_tables(source: Any) -> GraphTables:
    """A store's `graph`, or the graph's tables on a connection handed over (a bare one the
    graph's own tests build, or a store's inside its transaction)."""
    from synapse_tui.core.store.api import Store

    if isinstance(source, GraphTables):
        return source
    if isinstance(source, Store):
        return source.graph
    if isinstance(source, sqlite3.Connection):
        return GraphTables(source)
    from synapse_tui.core.store.postgres.dialect import POSTGRES  # a server's, in its transaction

    return GraphTables(source, POSTGRES)


class GraphTables:
    """Indexed reads of one connection's graph tables. `conn` keys the caches of those who
    keep what they read (graph/read.py's entity names and PageRank)."""

    def __init__(self, conn: Any, dialect: Dialect = SQLITE) -> None:
        self.conn = conn
        self._dialect = dialect  # the spellings the two databases read differently

    # -- facts ---------------------------------------------------------------------------

    def last_position(self) -> int:
        return self.conn.execute("SELECT coalesce(max(pos), 0) FROM facts").fetchone()[0]

    def position(self, fact_id: str) -> int | None:
        row = self.conn.execute("SELECT pos FROM facts WHERE id = ?", (fact_id,)).fetchone()
        return None if row is None else row[0]

    def facts_at(self, positions: Sequence[int]) -> dict[int, tuple[str, str]]:
        """(id, text) by position."""
        out: dict[int, tuple[str, str]] = {}
        for part in _chunks(list(positions)):
            sql = f"SELECT pos, id, text FROM facts WHERE pos IN ({_marks(len(part))})"
            out.update((p, (i, t)) for p, i, t in self.conn.execute(sql, part))
        return out

    def all_facts(self) -> Iterator[tuple[int, str, str]]:
        """(pos, id, text) of every fact."""
        return iter(self.conn.execute("SELECT pos, id, text FROM facts"))

    # -- entities and mentions -----------------------------------------------------------

    def entity_keys(self, eids: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for part in _chunks(list(eids)):
            sql = f"SELECT eid, key FROM entities WHERE eid IN ({_marks(len(part))})"
            out.update(self.conn.execute(sql, part))
        return out

    def all_entity_keys(self) -> dict[int, str]:
        return dict(self.conn.execute("SELECT eid, key FROM entities"))

    def mentions_at(self, positions: Sequence[int]) -> list[tuple[int, int]]:
        """(pos, eid) for every entity these facts name."""
        out = []
        for part in _chunks(list(positions)):
            sql = f"SELECT pos, eid FROM mentions WHERE pos IN ({_marks(len(part))})"
            out += self.conn.execute(sql, part).fetchall()
        return out

    def all_mentions(self) -> Iterator[tuple[int, int]]:
        return iter(self.conn.execute("SELECT pos, eid FROM mentions"))

    def entities_at(self, pos: int) -> list[int]:
        return [e for (e,) in self.conn.execute("SELECT eid FROM mentions WHERE pos = ?", (pos,))]

    def keyed_entities_at(self, pos: int) -> list[tuple[int, str]]:
        """(eid, key) of the entities the fact at `pos` names, by key."""
        return self.conn.execute(
            "SELECT e.eid, e.key FROM mentions m JOIN entities e ON e.eid = m.eid WHERE m.pos = ? ORDER BY e.key",
            (pos,),
        ).fetchall()

    def naming_counts(self, eids: Sequence[int]) -> dict[int, int]:
        """How many facts name each entity, in one query per chunk."""
        out: dict[int, int] = {}
        for part in _chunks(list(eids)):
            sql = f"SELECT eid, count(*) FROM mentions WHERE eid IN ({_marks(len(part))}) GROUP BY eid"
            out.update(self.conn.execute(sql, part))
        return out

    def naming_count(self, eid: int) -> int:
        """How many facts name the entity (an index range count)."""
        return self.conn.execute("SELECT count(*) FROM mentions WHERE eid = ?", (eid,)).fetchone()[0]

    def newest_naming(self, eid: int, limit: int, besides: int | None = None) -> list[int]:
        """The newest `limit` facts naming the entity (other than the one at `besides`)."""
        if besides is None:
            rows = self.conn.execute(
                "SELECT pos FROM mentions WHERE eid = ? ORDER BY pos DESC LIMIT ?", (eid, limit)
            )
        else:
            rows = self.conn.execute(
                "SELECT pos FROM mentions WHERE eid = ? AND pos != ? ORDER BY pos DESC LIMIT ?",
                (eid, besides, limit),
            )
        return [p for (p,) in rows]

    def entity_counts_at(self, positions: Sequence[int]) -> dict[int, int]:
        """How many entities each of these facts names."""
        out: dict[int, int] = {}
        for part in _chunks(list(positions)):
            sql = f"SELECT pos, count(*) FROM mentions WHERE pos IN ({_marks(len(part))}) GROUP BY pos"
            out.update(self.conn.execute(sql, part))
        return out

    def mentions_mark(self) -> int:
        """The last position any mention names: names move only when it does."""
        return self.conn.execute("SELECT coalesce(max(pos), 0) FROM mentions").fetchone()[0]

    def spelling_counts(self, eids: Sequence[int] | None = None) -> list[tuple[int, str, int]]:
        """(eid, spelling, how many mentions spell it so) of these entities (None: all)."""
        if eids is None:
            sql = f"SELECT eid, spelling, count(*) FROM {self._dialect.unindexed('mentions')} GROUP BY eid, spelling"
            return self.conn.execute(sql).fetchall()
        return self.conn.execute(
            f"SELECT eid, spelling, count(*) FROM mentions WHERE {self._dialect.in_list('eid')}"
            " GROUP BY eid, spelling",
            (self._dialect.list_arg(eids),),
        ).fetchall()

    def top_spellings(self) -> dict[int, str]:
        """Each entity's most frequent spelling (ties: the first in code-point order)."""
        return dict(
            self.conn.execute(
                "SELECT eid, spelling FROM (SELECT eid, spelling, row_number() OVER"
                " (PARTITION BY eid ORDER BY count(*) DESC, spelling) AS r FROM mentions"
                " GROUP BY eid, spelling) WHERE r = 1"
            )
        )

    def shared_spellings(self, pos: int) -> list[tuple[str, str]]:
        """(other fact, spelling) for each entity the fact at `pos` shares with another."""
        return self.conn.execute(
            "SELECT f.id, m1.spelling FROM mentions m1 JOIN mentions m2 ON m1.eid = m2.eid"
            " JOIN facts f ON f.pos = m2.pos WHERE m1.pos = ? AND m2.pos != ? ORDER BY m1.spelling",
            (pos, pos),
        ).fetchall()

    # -- edges ---------------------------------------------------------------------------

    def semantic_touching(self, positions: Sequence[int]) -> list[tuple[int, int, float, str]]:
        """Every semantic edge touching these facts: (a, b, weight, space)."""
        out = []
        for part in _chunks(list(positions)):
            marks = _marks(len(part))
            out += self.conn.execute(
                f"SELECT a, b, weight, kind FROM semantic_edges WHERE a IN ({marks})"
                f" UNION SELECT a, b, weight, kind FROM semantic_edges WHERE b IN ({marks})",
                [*part, *part],
            ).fetchall()
        return out

    def all_semantic(self) -> Iterator[tuple[int, int, float, str]]:
        return iter(self.conn.execute("SELECT a, b, weight, kind FROM semantic_edges"))

    def semantic_of(self, pos: int) -> list[tuple[str, float, str]]:
        """(other fact's id, weight, space) of the fact's semantic edges, heaviest first."""
        return self.conn.execute(
            "SELECT f.id, s.weight, s.kind FROM ("
            " SELECT b AS o, weight, kind FROM semantic_edges WHERE a = ?"
            " UNION ALL SELECT a AS o, weight, kind FROM semantic_edges WHERE b = ?) s"
            " JOIN facts f ON f.pos = s.o ORDER BY s.weight DESC, f.id",
            (pos, pos),
        ).fetchall()

    def edge_weights(self, fact_id: str) -> list[tuple[str, float]]:
        """(other fact, weight) of each semantic edge of `fact_id`."""
        return self.conn.execute(
            "SELECT f.id, s.weight FROM ("
            " SELECT b AS o, weight FROM semantic_edges WHERE a = (SELECT pos FROM facts WHERE id = ?)"
            " UNION ALL SELECT a AS o, weight FROM semantic_edges WHERE b = (SELECT pos FROM facts WHERE id = ?)) s"
            " JOIN facts f ON f.pos = s.o",
            (fact_id, fact_id),
        ).fetchall()

    def semantic_pairs(self, min_weight: float) -> list[tuple[int, int]]:
        """(a, b) positions (from 1) of the semantic edges of at least `min_weight`."""
        return self.conn.execute(
            "SELECT a, b FROM semantic_edges WHERE weight >= ?", (float(min_weight),)
        ).fetchall()

    def npmi(self, eid: int, limit: int) -> list[tuple[int, float, int]]:
        """The entity's strongest NPMI neighbours: (other eid, weight, n_ab)."""
        return self.conn.execute(
            "SELECT o, weight, n_ab FROM ("
            " SELECT b AS o, weight, n_ab FROM npmi_edges WHERE a = ?"
            " UNION ALL SELECT a AS o, weight, n_ab FROM npmi_edges WHERE b = ?)"
            " ORDER BY weight DESC, o LIMIT ?",
            (eid, eid, limit),
        ).fetchall()

    def keyed_npmi(self, eid: int, limit: int) -> list[tuple[int, str, float, int]]:
        """(other eid, its key, weight, n_ab), heaviest first, ties by key."""
        return self.conn.execute(
            "SELECT n.o, e.key, n.weight, n.n_ab FROM ("
            " SELECT b AS o, weight, n_ab FROM npmi_edges WHERE a = ?"
            " UNION ALL SELECT a AS o, weight, n_ab FROM npmi_edges WHERE b = ?) n"
            " JOIN entities e ON e.eid = n.o ORDER BY n.weight DESC, e.key LIMIT ?",
            (eid, eid, limit),
        ).fetchall()

    def all_npmi(self) -> Iterator[tuple[int, int, float, int]]:
        return iter(self.conn.execute("SELECT a, b, weight, n_ab FROM npmi_edges"))

    def semantic_edges_by_id(self) -> list[tuple[str, str, float, str]]:
        """(fact id, fact id, weight, space) of every semantic edge."""
        return self.conn.execute(
            "SELECT fa.id, fb.id, s.weight, s.kind FROM semantic_edges s"
            " JOIN facts fa ON fa.pos = s.a JOIN facts fb ON fb.pos = s.b"
        ).fetchall()

    def npmi_edges_by_key(self) -> list[tuple[str, str, float]]:
        """(entity key, entity key, weight) of every NPMI edge."""
        return self.conn.execute(
            "SELECT ea.key, eb.key, n.weight FROM npmi_edges n"
            " JOIN entities ea ON ea.eid = n.a JOIN entities eb ON eb.eid = n.b"
        ).fetchall()

    # -- embeddings ----------------------------------------------------------------------

    def model_vector_sizes(self) -> tuple[int, int | None, int | None]:
        """How many model embeddings, and their smallest and largest size in bytes."""
        return self.conn.execute(
            "SELECT count(*), min(length(vec)), max(length(vec)) FROM embeddings WHERE kind = 'model'"
        ).fetchone()

    def without_model_embedding(self) -> list[tuple[int, str]]:
        """(pos, text) of every fact without a model embedding, in position order."""
        return self.conn.execute(
            "SELECT pos, text FROM facts WHERE pos NOT IN (SELECT pos FROM embeddings WHERE kind = 'model')"
            " ORDER BY pos"
        ).fetchall()

    def model_positions(self) -> set[int]:
        return {p for (p,) in self.conn.execute("SELECT pos FROM embeddings WHERE kind = 'model'")}

    def lexical_count(self, positions: Sequence[int]) -> int:
        """How many of these facts hold a built-in lexical embedding."""
        return self.conn.execute(
            f"SELECT count(*) FROM embeddings WHERE kind = 'lexical' AND {self._dialect.in_list('pos')}",
            (self._dialect.list_arg(positions),),
        ).fetchone()[0]

    def put_model_vectors(self, rows: Sequence[tuple[int, bytes]]) -> None:
        """Each fact's model embedding (float32 bytes), replacing what it held."""
        self.conn.executemany(
            self._dialect.upsert("embeddings", ("pos", "kind", "vec"), "pos", "VALUES (?, 'model', ?)"), rows
        )

    def set_meta(self, key: str, value: Any) -> None:
        """Keep `value` in `meta` as JSON, inside the caller's transaction."""
        self.conn.execute(
            self._dialect.upsert("meta", ("key", "value"), "key", "VALUES (?, ?)"), (key, json.dumps(value))
        )

    # -- the build's reads and writes (graph/build.py) ------------------------------------

    def meta(self, key: str) -> Any:
        """A value kept in `meta` (JSON), None when absent; inside the caller's transaction."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def delete_meta(self, key: str) -> None:
        self.conn.execute("DELETE FROM meta WHERE key = ?", (key,))

    def has_lexical_rows(self) -> bool:
        return (
            self.conn.execute("SELECT 1 FROM embeddings WHERE kind = 'lexical' LIMIT 1").fetchone()
            is not None
        )

    def mark_lexical_after(self, through: int) -> int:
        """Put every fact after `through` without an embedding in the lexical space (a
        marker row with an empty vector); how many."""
        return self.conn.execute(
            "INSERT INTO embeddings (pos, kind, vec) SELECT pos, 'lexical', ? FROM facts f WHERE pos > ?"
            " AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.pos = f.pos) ORDER BY pos",
            (b"", through),
        ).rowcount

    def space_rows(self, kind: str, after: int) -> list[tuple[int, str, Any]]:
        """One space's rows after position `after`, in position order: (pos, fact id, text)
        for the lexical space, (pos, fact id, vector bytes) for a model's."""
        if kind == "lexical":
            return self.conn.execute(
                "SELECT e.pos, f.id, f.text FROM embeddings e JOIN facts f ON f.pos = e.pos"
                " WHERE e.kind = 'lexical' AND e.pos > ? ORDER BY e.pos",
                (after,),
            ).fetchall()
        return self.conn.execute(
            "SELECT e.pos, f.id, e.vec FROM embeddings e JOIN facts f ON f.pos = e.pos"
            " WHERE e.kind = ? AND e.pos > ? ORDER BY e.pos",
            (kind, after),
        ).fetchall()

    def space_counts(self) -> list[tuple[str, int, int]]:
        """(space, row count, last position) of each space, from the embeddings' index."""
        return self.conn.execute(SPACE_COUNTS).fetchall()

    def fact_and_mention_counts(self) -> tuple[int, int, int]:
        """How many facts, the last position, and how many mentions."""
        n, last = self.conn.execute("SELECT count(*), coalesce(max(pos), 0) FROM facts").fetchone()
        return n, last, self.conn.execute("SELECT count(*) FROM mentions").fetchone()[0]

    def put_knn(self, rows: Iterable[tuple[int, bytes, bytes]]) -> None:
        """Each fact's neighbour list (int32 positions, float32 cosines), replacing its old."""
        self.conn.executemany(
            self._dialect.upsert("knn", ("pos", "nbrs", "cos"), "pos", "VALUES (?, ?, ?)"), rows
        )

    def knn_through(self, last: int) -> list[tuple[int, bytes, bytes]]:
        """(pos, nbrs, cos) of every list up to position `last`, in position order."""
        return self.conn.execute(
            "SELECT pos, nbrs, cos FROM knn WHERE pos <= ? ORDER BY pos", (last,)
        ).fetchall()

    def delete_knn_of(self, kind: str) -> None:
        self.conn.execute("DELETE FROM knn WHERE pos IN (SELECT pos FROM embeddings WHERE kind = ?)", (kind,))

    def delete_semantic(self, kind: str | None = None) -> None:
        """Every semantic edge (of one space)."""
        if kind is None:
            self.conn.execute("DELETE FROM semantic_edges")
        else:
            self.conn.execute("DELETE FROM semantic_edges WHERE kind = ?", (kind,))

    def replace_semantic(self, kind: str, rows: Iterable[tuple[int, int, float, str]]) -> None:
        """One space's edges, all of them anew. On a file the second index is built after
        the rows, in one sort (240,000 edges: 0.36 s, not 0.55 s). Not on a server:
        dropping an index takes its owner, which an agent's role (docs/postgres.md) is not,
        and COPY keeps it in step as cheaply."""
        self.delete_semantic(kind)
        alone = (
            isinstance(self.conn, sqlite3.Connection)
            and self.conn.execute("SELECT 1 FROM semantic_edges LIMIT 1").fetchone() is None
        )
        if alone:
            self.conn.execute("DROP INDEX semantic_edges_b")
        self.insert_semantic(rows)
        if alone:
            self.conn.execute(SEMANTIC_EDGES_B)

    def insert_semantic(self, rows: Iterable[tuple[int, int, float, str]]) -> None:
        self._dialect.insert_rows(self.conn, "semantic_edges", ("a", "b", "weight", "kind"), rows)

    def delete_semantic_pairs(self, pairs: Iterable[tuple[int, int]]) -> None:
        self.conn.executemany("DELETE FROM semantic_edges WHERE a = ? AND b = ?", pairs)

    def reweigh_semantic(self, rows: Iterable[tuple[float, int, int]]) -> None:
        """(new weight, a, b) of edges that keep their ends."""
        self.conn.executemany("UPDATE semantic_edges SET weight = ? WHERE a = ? AND b = ?", rows)

    def notes_after(self, after: int = 0) -> list[tuple[int, str | None]]:
        """(pos, note) of every fact after `after`, in position order."""
        if not after:
            return self.conn.execute("SELECT pos, note FROM facts ORDER BY pos").fetchall()
        return self.conn.execute(
            "SELECT pos, note FROM facts WHERE pos > ? ORDER BY pos", (after,)
        ).fetchall()

    def mentions_after(self, after: int = 0) -> list[tuple[int, int]]:
        """(pos, eid) of every mention after position `after`, in (pos, eid) order."""
        if not after:
            return self.conn.execute("SELECT pos, eid FROM mentions ORDER BY pos, eid").fetchall()
        return self.conn.execute(
            "SELECT pos, eid FROM mentions WHERE pos > ? ORDER BY pos, eid", (after,)
        ).fetchall()

    def replace_npmi(self, rows: Iterable[tuple[int, int, float, int]]) -> None:
        """Every NPMI edge anew."""
        self.conn.execute("DELETE FROM npmi_edges")
        self._dialect.insert_rows(self.conn, "npmi_edges", ("a", "b", "weight", "n_ab"), rows)

    # -- what the build kept in meta -----------------------------------------------------

    def built(self) -> bool:
        """Whether the graph of this store was built (imports build it)."""
        return self.conn.execute("SELECT 1 FROM meta WHERE key = 'graph.npmi'").fetchone() is not None

    def semantic_states(self) -> list[tuple[str, Any]]:
        """(key, state) of each embedding space's build (meta `graph.semantic.*`)."""
        rows = self.conn.execute("SELECT key, value FROM meta WHERE key LIKE 'graph.semantic.%' ORDER BY key")
        return [(key, json.loads(value)) for key, value in rows]

    def pagerank_mark(self) -> tuple[int, int]:
        """Moves when another connection commits, or this one changes rows."""
        return (self.conn.execute(self._dialect.data_version()).fetchone()[0], self.conn.total_changes)

    def pagerank(self) -> dict[str, float]:
        """PageRank by entity id (as a string key), as the build stored it."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'graph.pagerank'").fetchone()
        return json.loads(row[0]) if row else {}
