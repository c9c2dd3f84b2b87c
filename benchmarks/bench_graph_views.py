"""Figures for issue 11: the neighbour view's ego graph and the path between two facts.

    python benchmarks/bench_graph_views.py [--n 100000] [--db PATH] [--pairs 30]

Builds (once, then reuses at --db) a store of n facts with clustered embeddings (d = 32:
the dimension does not change what these lookups read), notes of 5 facts and entities
drawn from a Zipf law over 2,000 names, so a few hub entities are named by thousands of
facts, and its graph through `rebuild_graph`. Then, on random facts and pairs, each lookup
timed as the best of three runs (the machine is shared; its load average is printed):

- `ego_graph` (the neighbour view's rows) against `neighbours` (the plain one-fact lookup
  the view used before) in the same run;
- `path_between` against the exact answer: the whole graph read into networkx once
  (`whole_graph`) and Dijkstra on it. The ratio of the times, and how often the bounded
  search finds a path exactly as strong as the whole graph's.
"""

from __future__ import annotations

import argparse
import math
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.graph import edges as g  # noqa: E402
from synapse_tui.core.graph.build import rebuild_graph  # noqa: E402
from synapse_tui.core.graph.ego import ego_graph, whole_graph  # noqa: E402
from synapse_tui.core.graph.path import path_between  # noqa: E402
from synapse_tui.core.graph.read import neighbours  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from synapse_tui.core.store.schema import migrate  # noqa: E402

D = 32
ENTITIES = 2000


def build(db: Path, n: int) -> None:
    rng = np.random.default_rng(11)
    centres = rng.standard_normal((max(1, n // 100), D)).astype(np.float32)
    X = centres[rng.integers(0, len(centres), n)] + 0.7 * rng.standard_normal((n, D)).astype(np.float32)
    X = g.normalise(X)
    zipf = np.minimum(rng.zipf(1.3, size=(n, 3)), ENTITIES) - 1
    conn = sqlite3.connect(db)
    migrate(conn)
    conn.executemany(
        "INSERT INTO entities (eid, key) VALUES (?, ?)", [(e + 1, f"e{e}") for e in range(ENTITIES)]
    )
    rows, emb, ments = [], [], []
    for i in range(n):
        pos = i + 1
        rows.append((pos, f"f{pos:07d}", f"fact {pos}", f"n{pos // 5}"))
        emb.append((pos, X[i].tobytes()))
        ments.extend((pos, int(e) + 1, f"E{e}") for e in set(zipf[i, : 1 + i % 3].tolist()))
    conn.executemany(
        "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, note, sig_state)"
        " VALUES (?, ?, ?, '2024-01-01T00:00:00Z', 0, 'auto', 0, 0, x'', ?, 0)",
        rows,
    )
    conn.executemany("INSERT INTO embeddings (pos, kind, vec) VALUES (?, 'model', ?)", emb)
    conn.executemany("INSERT INTO mentions (pos, eid, spelling) VALUES (?, ?, ?)", ments)
    t = time.perf_counter()
    rebuild_graph(conn, Config())
    conn.commit()
    print(f"built a store of {n} facts and its graph in {time.perf_counter() - t:.1f} s: {db}", flush=True)
    conn.close()


def best_of(call, runs: int = 3) -> float:
    """The fastest of a few runs: on a shared machine the others measure the neighbours."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return min(times)


def ms(times: list[float]) -> str:
    return f"median {1000 * statistics.median(times):.1f} ms, max {1000 * max(times):.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--pairs", type=int, default=30)
    args = parser.parse_args()
    db = args.db or Path(f"/tmp/synapse-bench-graph-views-{args.n}.db")
    if not db.exists():
        build(db, args.n)
    conn = sqlite3.connect(db)
    store = Store(db, conn, readonly=True)
    config = Config()
    load = os.getloadavg()[0]
    print(
        f"machine: {os.cpu_count()} cores, load average {load:.1f} (figures above ~1 per core are inflated)"
    )
    hubs = conn.execute(
        "SELECT eid, count(*) c FROM mentions GROUP BY eid ORDER BY c DESC LIMIT 3"
    ).fetchall()
    edges = conn.execute("SELECT count(*) FROM semantic_edges").fetchone()[0]
    print(
        f"store: {args.n} facts, {edges} semantic edges; the biggest hub entities are named by "
        f"{', '.join(str(c) for _, c in hubs)} facts"
    )
    rng = np.random.default_rng(3)
    sample = [f"f{int(p):07d}" for p in rng.integers(1, args.n + 1, args.pairs)]

    base, ego, rows = [], [], []
    for fid in sample:
        base.append(best_of(lambda fid=fid: neighbours(store, fid, config)))
        ego.append(best_of(lambda fid=fid: ego_graph(conn, fid, config)))
        rows.append(len(ego_graph(conn, fid, config).rows))
    print(f"neighbours (baseline, one-fact lookup): {ms(base)}")
    print(
        f"ego_graph (the neighbour view, {statistics.median(rows):.0f} rows): {ms(ego)}; "
        f"ratio to the baseline {statistics.median(ego) / statistics.median(base):.1f}"
    )

    # the bounded searches first: a live 400,000-edge networkx graph makes every garbage
    # collection pass walk it, which would be charged to whatever runs next
    pairs = list(zip(sample, sample[1:] + sample[:1], strict=True))
    paths, bounded = [], []
    for a, b in pairs:
        paths.append(path_between(conn, a, b, config))
        bounded.append(best_of(lambda a=a, b=b: path_between(conn, a, b, config)))

    t = time.perf_counter()
    G = whole_graph(conn)
    t_whole = time.perf_counter() - t
    print(f"whole_graph (every node and edge in networkx): {t_whole:.2f} s, {len(G)} nodes, {G.size()} edges")

    found, same, none_both, exact, hops, ratio = 0, 0, 0, [], [], []
    for (a, b), path in zip(pairs, paths, strict=True):
        t = time.perf_counter()
        try:
            want = nx_cost(G, a, b)
        except LookupError:
            want = None
        exact.append(time.perf_counter() - t)
        if path is not None:
            found += 1
            hops.append(path.hops)
            if want is not None:
                same += abs(path.cost - want) < 1e-9
                ratio.append(math.exp(want - path.cost))
        elif want is None:
            none_both += 1
    print(
        f"path_between (bounded, max {config.graph.path_max_hops} hops, fanout {config.graph.path_fanout}): "
        f"{ms(bounded)}; found {found}/{len(pairs)} (median {statistics.median(hops or [0])} hops)"
    )
    print(
        f"exact Dijkstra on the whole graph: {ms(exact)} per pair, after the {t_whole:.2f} s build; "
        f"ratio bounded / (build + one exact search) {statistics.median(bounded) / (t_whole + statistics.median(exact)):.3f}"
    )
    print(
        f"the bounded path is exactly as strong as the whole graph's in {same}/{found} pairs it found; "
        f"{none_both} pairs have no path at all; its strength is {statistics.median(ratio or [1]):.2f} of the "
        f"whole graph's best (median; min {min(ratio or [1]):.2f})"
    )


def nx_cost(G, a: str, b: str) -> float:
    import networkx as nx

    try:
        return nx.shortest_path_length(
            G, ("fact", a), ("fact", b), weight=lambda u, v, d: -math.log(max(d["weight"], 1e-12))
        )
    except nx.NetworkXNoPath:
        raise LookupError((a, b)) from None


if __name__ == "__main__":
    main()
