"""Choosing the approximate kNN library (issue 13) by measurement on this machine.

    python benchmarks/bench_ann.py [--n 100000] [--only pynndescent,faiss-hnsw,...] [--lexical] [--no-exact]

The same clustered d = 384 vectors as bench_graph.py. For each candidate: index build,
all-vs-all top-(k + 1) search, and recall@10 against the exact top-10 of 2,000 sampled
rows (seeded), with the exact blockwise kNN of the whole set as the baseline in the same
run (skipped above 200,000 rows: it takes minutes there). Libraries not installed are
reported and skipped. pynndescent compiles its numba code in each new process: that is
timed apart, once, on 300 rows ("pynndescent compile"), before its own timing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_graph import clustered  # noqa: E402

from synapse_tui.core.graph import edges as g  # noqa: E402

K = 10


def truth(X: np.ndarray, sample: np.ndarray) -> np.ndarray:
    S = X[sample] @ X.T
    S[np.arange(sample.size), sample] = -np.inf
    return np.argsort(-S, axis=1)[:, :K]


def recall(found: np.ndarray, exact: np.ndarray) -> float:
    return float(np.mean([np.intersect1d(a, b).size / K for a, b in zip(found, exact, strict=True)]))


def faiss_hnsw(X: np.ndarray, m: int = 32, ef_c: int = 80, ef_s: int = 64) -> np.ndarray:
    import faiss

    index = faiss.IndexHNSWFlat(X.shape[1], m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_c
    index.add(X)
    index.hnsw.efSearch = ef_s
    return index.search(X, K + 1)[1]


def faiss_ivf(X: np.ndarray, nprobe: int = 16) -> np.ndarray:
    import faiss

    nlist = int(4 * np.sqrt(X.shape[0]))
    quant = faiss.IndexFlatIP(X.shape[1])
    index = faiss.IndexIVFFlat(quant, X.shape[1], nlist, faiss.METRIC_INNER_PRODUCT)
    rng = np.random.default_rng(0)
    index.train(X[rng.choice(X.shape[0], min(X.shape[0], 40 * nlist), replace=False)])
    index.add(X)
    index.nprobe = nprobe
    return index.search(X, K + 1)[1]


def usearch_hnsw(X: np.ndarray, m: int = 32, ef_c: int = 80, ef_s: int = 64) -> np.ndarray:
    from usearch.index import Index

    index = Index(
        ndim=X.shape[1], metric="ip", dtype="f32", connectivity=m, expansion_add=ef_c, expansion_search=ef_s
    )
    index.add(np.arange(X.shape[0]), X)
    return index.search(X, K + 1).keys


def lexical_vectors(n: int) -> np.ndarray:
    import json
    import tempfile

    from synth import write_synthetic_jsonl

    from synapse_tui.core.graph.lexical import embed_texts

    with tempfile.TemporaryDirectory() as tmp:
        src = write_synthetic_jsonl(Path(tmp) / "facts.jsonl", n)
        texts = [json.loads(line)["text"] for line in open(src, encoding="utf-8")]
    return embed_texts(texts)


def nndescent(X: np.ndarray, neighbours: int = 15) -> np.ndarray:
    import pynndescent

    index = pynndescent.NNDescent(
        X, metric="dot", n_neighbors=neighbours, random_state=13, low_memory=True, compressed=False
    )
    return index.neighbor_graph[0]


CANDIDATES = {
    "pynndescent": nndescent,
    "pynndescent-30": lambda X: nndescent(X, 30),
    "faiss-hnsw": faiss_hnsw,
    "faiss-hnsw-m16": lambda X: faiss_hnsw(X, 16, 64, 48),
    "faiss-hnsw-m8": lambda X: faiss_hnsw(X, 8, 40, 32),
    "faiss-ivf": faiss_ivf,
    "faiss-ivf-p4": lambda X: faiss_ivf(X, 4),
    "usearch": usearch_hnsw,
}


def drop_self(found: np.ndarray, sample: np.ndarray) -> np.ndarray:
    rows = found[sample]
    return np.array([[j for j in r if j != i and j >= 0][:K] for i, r in zip(sample, rows, strict=True)])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--only", default=",".join(CANDIDATES))
    parser.add_argument(
        "--lexical", action="store_true", help="the built-in lexical vectors of synthetic facts"
    )
    parser.add_argument("--no-exact", action="store_true", help="skip the exact baseline")
    args = parser.parse_args()
    for info in threadpool_info():
        print(
            f"BLAS/OpenMP: {info.get('internal_api')} {info.get('version')} kernel={info.get('architecture')}"
        )
    X = lexical_vectors(args.n) if args.lexical else clustered(args.n)
    sample = np.random.default_rng(1).choice(args.n, 2000, replace=False)
    exact = truth(X, sample)
    t_exact = None
    if args.n <= 200_000 and not args.no_exact:
        t = time.perf_counter()
        g.exact_knn(X, g.string_ranks([f"f{i:07d}" for i in range(args.n)]), K)
        t_exact = time.perf_counter() - t
        print(f"N={args.n}: exact blockwise kNN {t_exact:.1f} s (baseline)", flush=True)
    for name in args.only.split(","):
        if name.startswith("pynndescent"):
            try:
                t = time.perf_counter()
                nndescent(X[:300])
                print(
                    f"pynndescent compile (this process, 300 rows): {time.perf_counter() - t:.1f} s",
                    flush=True,
                )
            except ImportError:
                pass
        try:
            t = time.perf_counter()
            found = CANDIDATES[name](X)
            dt = time.perf_counter() - t
        except ImportError as exc:
            print(f"{name}: not installed ({exc})")
            continue
        ratio = f"; exact / this {t_exact / dt:.1f}x" if t_exact else ""
        print(
            f"N={args.n}: {name:15s} {dt:7.1f} s  recall@10 {recall(drop_self(found, sample), exact):.4f}{ratio}",
            flush=True,
        )


if __name__ == "__main__":
    main()
