"""Figures for issue 3: neighbour-graph build, incremental update and lookup times.

    python benchmarks/bench_graph.py [--sizes 10000,100000] [--skip-store] [--skip-import]
                                     [--import-only] [--texts words|world|vocab|zipf|file:PATH,...]
                                     [--route cheapest|approximate|exact] [--installs scale,base]
                                     [--write-results]

Clustered synthetic embeddings (d = 384). For each size: the exact kNN + edges time, the
time of one plain blockwise X @ X.T pass over the same data in the same run (the ratio is
what to compare across machines), and, for the largest size, a store built through
`rebuild_graph`, then 100 facts added through `update_graph`, `neighbours` latency and
the near-duplicate clusters. Then the import path without embeddings: synthetic facts
imported, and the graph step (lexical embeddings + kNN + edges + NPMI) timed against one
X @ X.T pass over the lexical vectors. Every ratio is against a pass in the same run. With
faiss installed in the benchmark's environment (never a dependency), the kNN is also set
against faiss's exact top-10 search over the same vectors (IndexFlatIP): an exact top-10
pass as a library does it, where the bare product pass selects nothing.
The import's texts are six random words of 21 (`--texts words`), the sample's phrasing
from its world simulation (`--texts world`), 6-14 words of a 200-word vocabulary drawn
uniformly (`--texts vocab`, no structure: the hardest case for any index) or by a Zipf law
(`--texts zipf`), or the first N lines of a text file, one fact a line (`--texts
file:PATH`: a corpus of real dialogue, say), several in one run when listed;
`--installs base` routes as an install without the [scale] extra would.
`--write-results` puts the import's figures, each against the pass in the same run, into
RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from threadpoolctl import threadpool_info

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Results  # noqa: E402

from synapse_tui.core.graph import ann, knn  # noqa: E402
from synapse_tui.core.graph import edges as g  # noqa: E402
from synapse_tui.core.graph.build import rebuild_graph, update_graph  # noqa: E402
from synapse_tui.core.graph.lexical import embed_texts  # noqa: E402
from synapse_tui.core.graph.read import neighbours  # noqa: E402
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.review.junk import near_duplicate_clusters  # noqa: E402
from synapse_tui.core.store.db import SqliteStore  # noqa: E402
from synapse_tui.core.store.schema import migrate  # noqa: E402

D = 384
FIGURES = Results("bench_graph.py")
PASSES: dict[tuple[int, str], tuple[float, float]] = {}  # (n, texts) -> the pass's wall and CPU seconds
FLATS: dict[tuple[int, str], float | None] = {}  # (n, texts) -> faiss's exact top-10 search, if installed
TEXTS = {
    "words": "six random words of 21",
    "world": "phrased as the sample's",
    "vocab": "6-14 words of 200",
    "zipf": "6-14 words of 200, Zipf",
}
CONFIG = SimpleNamespace(
    graph=SimpleNamespace(k=10, npmi_min_count=2, near_duplicate_weight=0.9, unsupported_age_days=90.0)
)


def clustered(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, n // 100), D)).astype(np.float32)
    X = centres[rng.integers(0, len(centres), n)] + 0.7 * rng.standard_normal((n, D)).astype(np.float32)
    return g.normalise(X)


def matmul_pass(X: np.ndarray) -> float:
    t = time.perf_counter()
    n = X.shape[0]
    for i in range(0, n, knn.ROW_BLOCK):
        for j in range(0, n, knn.COL_BLOCK):
            X[i : i + knn.ROW_BLOCK] @ X[j : j + knn.COL_BLOCK].T
    return time.perf_counter() - t


def bench_edges(n: int) -> float:
    X = clustered(n)
    ranks = g.string_ranks([f"f{i:07d}" for i in range(n)])
    t = time.perf_counter()
    a, _, _ = g.mutual_edges(g.exact_knn(X, ranks, 10))
    t_edges = time.perf_counter() - t
    t_mm = matmul_pass(X)
    print(
        f"N={n:>7}: exact mutual-kNN edges {t_edges:7.2f} s ({a.size} edges); "
        f"one X @ X.T pass {t_mm:7.2f} s; ratio {t_edges / t_mm:.2f}",
        flush=True,
    )
    bench_faiss(X, t_edges)
    return t_mm


def flat_search(X: np.ndarray) -> float | None:
    """Seconds of faiss's exact top-10 search of every row (IndexFlatIP: products and a
    heap per row, in C++), when faiss is installed: an exact top-10 pass as a well-built
    library does it, beside the bare product pass, which selects nothing."""
    try:
        import faiss  # type: ignore[import-not-found]
    except ImportError:
        return None
    index = faiss.IndexFlatIP(X.shape[1])
    index.add(X)
    t = time.perf_counter()
    index.search(X, 11)  # each row finds itself first
    return time.perf_counter() - t


def bench_faiss(X: np.ndarray, t_ours: float) -> None:
    """faiss IndexFlatIP exact all-vs-all kNN on the same data, when faiss is installed in
    the benchmark environment (never a dependency). It gives the lists only: the mutual
    gate and the weights would come on top."""
    t_faiss = flat_search(X)
    if t_faiss is None:
        print("   faiss: not installed (pip install faiss-cpu to compare)", flush=True)
        return
    print(
        f"   faiss IndexFlatIP exact kNN lists {t_faiss:7.2f} s; ours / faiss {t_ours / t_faiss:.2f}",
        flush=True,
    )


def add_facts(conn: sqlite3.Connection, X: np.ndarray, start: int, rng: np.random.Generator) -> None:
    rows, emb, ments = [], [], []
    for i in range(X.shape[0]):
        pos = start + i
        rows.append((pos, f"f{pos:07d}", f"fact {pos}", f"n{pos // 5}"))
        emb.append((pos, X[i].tobytes()))
        ments.extend((pos, int(e) + 1, f"E{e}") for e in set(rng.integers(0, 2000, 2).tolist()))
    conn.executemany(
        "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, note, sig_state)"
        " VALUES (?, ?, ?, '2024-01-01T00:00:00Z', 0, 'auto', 0, 0, x'', ?, 0)",
        rows,
    )
    conn.executemany("INSERT INTO embeddings (pos, kind, vec) VALUES (?, 'model', ?)", emb)
    conn.executemany("INSERT INTO mentions (pos, eid, spelling) VALUES (?, ?, ?)", ments)


def bench_store(n: int, t_mm: float) -> None:
    X = clustered(n + 100, seed=1)
    rng = np.random.default_rng(2)
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(Path(tmp) / "bench.db")
        migrate(conn)
        conn.executemany(
            "INSERT INTO entities (eid, key) VALUES (?, ?)", [(e + 1, f"e{e}") for e in range(2000)]
        )
        add_facts(conn, X[:n], 1, rng)
        conn.commit()
        t = time.perf_counter()
        rebuild_graph(conn, CONFIG)
        conn.commit()
        dt = time.perf_counter() - t
        print(
            f"store N={n}: rebuild_graph {dt:.2f} s (incl. SQLite writes); ratio to the pass {dt / t_mm:.2f}",
            flush=True,
        )
        add_facts(conn, X[n:], n + 1, rng)
        conn.commit()
        t = time.perf_counter()
        conn.execute("SELECT vec FROM embeddings ORDER BY pos").fetchall()
        t_read = time.perf_counter() - t
        t = time.perf_counter()
        result = update_graph(conn, list(range(n + 1, n + 101)), CONFIG)
        conn.commit()
        dt = time.perf_counter() - t
        print(
            f"store N={n}: +100 facts update_graph {dt:.2f} s "
            f"(extended {result.extended}, rebuilt {result.rebuilt}); ratio to the pass {dt / t_mm:.3f}, "
            f"to one read of every vector ({t_read:.2f} s) {dt / t_read:.1f}",
            flush=True,
        )
        t = time.perf_counter()
        store = SqliteStore(Path("bench.db"), conn, readonly=True)
        clusters = near_duplicate_clusters(store, CONFIG)
        print(
            f"store N={n}: near_duplicate_clusters {1000 * (time.perf_counter() - t):.0f} ms ({len(clusters)} clusters)"
        )
        times = []
        for fid in rng.integers(1, n, 20):
            t = time.perf_counter()
            neighbours(store, f"f{int(fid):07d}", CONFIG)
            times.append(time.perf_counter() - t)
        print(
            f"store N={n}: neighbours median {1000 * np.median(times):.1f} ms, max {1000 * max(times):.1f} ms"
        )
        conn.close()


def corpus(n: int, texts: str) -> list[str] | None:
    """The import's texts (`TEXTS`, or `file:PATH`: the first n lines of a text file, one
    fact a line); None: write_synthetic_jsonl's six words of 21."""
    from synth import vocabulary_texts, world_texts

    if texts.startswith("file:"):
        lines = [line for line in Path(texts[5:]).read_text(encoding="utf-8").splitlines() if line.strip()]
        if len(lines) < n:
            raise SystemExit(f"{texts[5:]}: {len(lines):,} lines, fewer than the {n:,} facts asked for")
        return lines[:n]
    if texts == "world":
        return world_texts(n)
    if texts in ("vocab", "zipf"):
        return vocabulary_texts(n, zipf=1.0 if texts == "zipf" else 0.0)
    return None


def bench_import(n: int, texts: str = "words", route: str = "cheapest", install: str = "scale") -> None:
    """`synapse-tui import` of n facts without embeddings: the graph step, timed by part.
    `texts`: a key of TEXTS."""
    from synth import write_synthetic_jsonl

    from synapse_tui.core.base.config import Config
    from synapse_tui.core.store.db import Store

    knn_time = [0.0]
    build_knn = ann.build_knn
    methods: list[str] = []

    def timed_knn(*args: object, **kwargs: object) -> ann.Build:
        t0 = time.perf_counter()
        try:
            built = build_knn(*args, **kwargs)
            if built.knn.nbrs.shape[0]:  # the space that has facts
                priced = ", ".join(f"{name} {s:.1f} s" for name, s in built.priced.items())
                methods.append(
                    (f"{built.method}, recall@10 {built.recall}" if built.approximate else built.method)
                    + (f" [priced: {priced}]" if priced else "")
                    + (f" ({built.note})" if built.note else "")
                )
            return built
        finally:
            knn_time[0] += time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        src = write_synthetic_jsonl(Path(tmp) / "facts.jsonl", n, texts=corpus(n, texts))
        facts = parse_file(src)
        with Store.open(Path(tmp) / "imp.db", create=True) as store:
            t = time.perf_counter()
            result = import_facts(store, facts, str(src))
            t_import = time.perf_counter() - t
            ann.build_knn = timed_knn
            try:
                t, cpu = time.perf_counter(), time.process_time()
                with store.transaction() as conn:
                    update_graph(conn, result.new_positions, Config().with_values("graph", route=route))
                t_graph, cpu_graph = time.perf_counter() - t, time.process_time() - cpu
            finally:
                ann.build_knn = build_knn
        t = time.perf_counter()
        X = embed_texts([f.text for f in facts])
        t_embed = time.perf_counter() - t
    load = os.getloadavg()
    if (n, texts) not in PASSES:  # one pass per corpus: the installs of a run share it
        cpu = time.process_time()
        PASSES[n, texts] = matmul_pass(X), time.process_time() - cpu
    if (n, texts) not in FLATS:
        FLATS[n, texts] = flat_search(X)
    t_mm, cpu_mm = PASSES[n, texts]
    load = tuple(max(a, b) for a, b in zip(load, os.getloadavg(), strict=True))
    base = f"one X @ X.T pass over {n:,} x {X.shape[1]}"
    said = TEXTS.get(texts) or f"the lines of {Path(texts[5:]).name}"
    what = f"{n:,} facts, {said}, route {route}, {'base install' if install == 'base' else '[scale]'}"
    FIGURES.add(f"import graph step, {what}", t_graph, baseline=base, against=t_mm)
    FIGURES.add(f"kNN by {' / '.join(methods)}", knn_time[0], baseline=base, against=t_mm)
    if FLATS[n, texts] is not None:
        FIGURES.add(
            "the same kNN",
            knn_time[0],
            baseline=f"faiss IndexFlatIP's exact top-10 search over {n:,} x {X.shape[1]}",
            against=FLATS[n, texts],
        )
    print(
        f"import N={n} without embeddings ({texts} texts): facts {t_import:.2f} s; graph step {t_graph:.2f} s"
        f" ({cpu_graph:.1f} s of CPU; one X @ X.T pass {cpu_mm:.1f} s of CPU) "
        f"(kNN {knn_time[0]:.2f} s, the rest {t_graph - knn_time[0]:.2f} s, of which lexical embedding "
        f"{t_embed:.2f} s; kNN by {' / '.join(methods)});"
        f" one X @ X.T pass over the lexical vectors (d={X.shape[1]}) {t_mm:.2f} s; "
        f"ratios: graph step {t_graph / t_mm:.2f}, kNN {knn_time[0] / t_mm:.2f}, rest {(t_graph - knn_time[0]) / t_mm:.3f}"
        + (
            f"; faiss's exact top-10 search {FLATS[n, texts]:.2f} s, kNN / it {knn_time[0] / FLATS[n, texts]:.2f}"
            if FLATS[n, texts] is not None
            else ""
        )
        + f"; load average (the higher of before and after the pass) {', '.join(f'{x:.2f}' for x in load)}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--skip-store", action="store_true")
    parser.add_argument("--skip-import", action="store_true")
    parser.add_argument("--import-only", action="store_true", help="just the import without embeddings")
    parser.add_argument(
        "--texts",
        default="words",
        help=f"the import's texts, of {','.join(TEXTS)}, or file:PATH (one fact a line, the first N used)",
    )
    parser.add_argument("--route", choices=("cheapest", "approximate", "exact"), default="cheapest")
    parser.add_argument(
        "--installs", default="scale", help="scale, base (neither faiss nor pynndescent offered), or both"
    )
    parser.add_argument(
        "--write-results", action="store_true", help="put the import's figures into RESULTS.md"
    )
    args = parser.parse_args()
    for info in threadpool_info():
        print(
            f"BLAS: {info.get('internal_api')} {info.get('version')} kernel={info.get('architecture')} "
            f"threads={info.get('num_threads')}"
        )
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.import_only:
        imports(max(sizes), args)
        return
    passes = {n: bench_edges(n) for n in sizes}
    if not args.skip_store:
        bench_store(max(sizes), passes[max(sizes)])
    if not args.skip_import:
        imports(max(sizes), args)


def imports(n: int, args: argparse.Namespace) -> None:
    """bench_import for each of the texts and installs asked for."""
    available = ann.faiss_available, ann.nndescent_available
    for texts in args.texts.split(","):
        for install in args.installs.split(","):  # the pass of the corpus is timed once, with the first
            if install == "base":
                ann.faiss_available = ann.nndescent_available = lambda: False
            try:
                bench_import(n, texts, args.route, install)
            finally:
                ann.faiss_available, ann.nndescent_available = available
    if args.write_results:
        FIGURES.save()


if __name__ == "__main__":
    main()
