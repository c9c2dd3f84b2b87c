"""A large import into a large store (issue 37, point 11): its time and peak memory.

Run: python benchmarks/bench_big_import.py OLD NEW [--work DIR] [--all]

1. a store of OLD synthetic facts with its neighbour graph (benchmarks/synth.py), and
   NEW more facts in interchange JSON Lines (another seed, ids of their own);
2. `synapse-tui import NEW.jsonl --db STORE` on a copy of that store, in a process of its
   own: the update (the graph extended from the files beside the store);
3. the baseline, in the same run: `synapse-tui import` of the OLD facts alone into an
   empty store (a full build of the graph over OLD facts).

Each import's wall time and peak resident memory (the child's own, from wait4) are
printed, and the update's as ratios to the baseline's. Before issue 37 the update built a
NEW x NEW float32 product: 47,000 into 20,000 segfaulted; memory grew with NEW squared.

`--all`: a second baseline, OLD and NEW facts together into an empty store (the
update may not cost more than that). `--work DIR` keeps the inputs (`sOLD.db`, `newNEW.jsonl`) there and reuses them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = "from synapse_tui.cli import main; main()"


def child(*args: str) -> tuple[float, float, int, float]:
    """(wall seconds, peak MB, exit status, CPU seconds) of one CLI run in a process of
    its own (its peak resident memory and user + system time, from wait4)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SYNAPSE_NOW": "2026-12-01T00:00:00Z"}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    tail = proc.stderr.read().decode(errors="replace").splitlines()[-1:] if proc.stderr else []
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(f"  exit {code}: {tail[0] if tail else ''}")
    print(f"  {' '.join(args[:2])}: {seconds:.1f} s, {usage.ru_maxrss / 1024:.0f} MB", flush=True)
    return seconds, usage.ru_maxrss / 1024, code, usage.ru_utime + usage.ru_stime


def synth(*args: str) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "synth.py"), *args],
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
    )


def inputs(work: Path, old: int, new: int) -> tuple[Path, Path, Path]:
    store, facts, base = work / f"s{old}.db", work / f"new{new}.jsonl", work / f"s{old}.jsonl"
    if not store.exists():
        synth(str(old), str(store))
    if not base.exists():
        synth(str(old), str(base))
    if not facts.exists():
        raw = work / f"raw{new}.jsonl"
        synth(str(new), str(raw), "--seed", "9")
        with open(raw, encoding="utf-8") as src, open(facts, "w", encoding="utf-8") as out:
            for line in src:  # ids of their own: every fact is new to the store
                out.write(
                    line.replace('"id": "s', '"id": "n', 1).replace('"supersedes": "s', '"supersedes": "n')
                )
        raw.unlink()
    return store, facts, base


def edge_recall(db: Path, sample: int) -> tuple[float, float, float, int]:
    """The update's lexical lists and mutual-kNN edges against exact ones, on `sample`
    facts drawn at random (seeded): (recall@10 of the lists, recall and precision of the
    sampled facts' edges, how many exact edges). An exact edge needs the exact lists of
    both ends (each in the other's top k, weight above 0), so the sampled facts' exact
    neighbours are searched exactly too (float32 products: a near-tie may count as a miss)."""
    import sqlite3

    import numpy as np

    sys.path.insert(0, str(ROOT))
    from synapse_tui.core.graph import lexical
    from synapse_tui.core.graph.ann import _exact
    from synapse_tui.core.graph.edges import directed_weights

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT f.pos, f.text FROM facts f JOIN embeddings e ON e.pos = f.pos"
        " WHERE e.kind = 'lexical' ORDER BY f.pos"
    ).fetchall()
    pos = np.array([p for p, _ in rows], np.int64)
    X = lexical.embed_texts([t for _, t in rows])
    del rows
    lists = {p: np.frombuffer(b, np.int32) for p, b in conn.execute("SELECT pos, nbrs FROM knn")}
    k = next(iter(lists.values())).size
    picked = np.sort(np.random.default_rng(0).choice(pos.size, size=min(sample, pos.size), replace=False))
    top, _ = _exact(X, picked, k)
    ends = np.unique(np.r_[picked, top.ravel()])
    ends_top, ends_cos = _exact(X, ends, k)
    weights = directed_weights(ends_cos)  # an edge is kept when its mean weight is above 0
    exact = {
        int(pos[r]): dict(zip(pos[t].tolist(), w.tolist(), strict=True))
        for r, t, w in zip(ends.tolist(), ends_top, weights, strict=True)
    }
    found = hits = got = right = 0
    for r in picked.tolist():
        p = int(pos[r])
        found += len(exact[p].keys() & set(lists[p].tolist()))
        truth = {q for q, w in exact[p].items() if p in exact[q] and w + exact[q][p] > 0}
        stored = {
            a if b == p else b
            for a, b in conn.execute(
                "SELECT a, b FROM semantic_edges WHERE (a = ? OR b = ?) AND kind = 'lexical'", (p, p)
            )
        }
        hits, got, right = hits + len(truth & stored), got + len(stored), right + len(truth)
        # `right` counts the exact edges; an edge whose other end was not searched exactly
        # cannot be judged: stored edges are all to listed neighbours, which are in `exact`'s keys
    conn.close()
    return found / (k * picked.size), hits / max(right, 1), hits / max(got, 1), right


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=int)
    parser.add_argument("new", type=int)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument(
        "--recall",
        type=int,
        default=0,
        metavar="N",
        help="the update's lists and edges against exact on N facts",
    )
    parser.add_argument(
        "--all", action="store_true", help="also time importing OLD and NEW together into an empty store"
    )
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="big-import-"))
    work.mkdir(parents=True, exist_ok=True)
    store, facts, base = inputs(work, args.old, args.new)
    target = work / "target.db"
    for p in (target, Path(f"{target}-graph")):
        shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
    shutil.copy(store, target)
    if Path(f"{store}-graph").is_dir():
        shutil.copytree(f"{store}-graph", f"{target}-graph")
    update = child("import", str(facts), "--db", str(target))
    empty = work / "baseline.db"
    for p in (empty, Path(f"{empty}-graph")):
        shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
    baseline = child("import", str(base), "--db", str(empty))
    runs = [
        ("update", update, "graph extended from its files"),
        ("baseline", baseline, f"{args.old:,} into an empty store"),
    ]
    if args.all:
        both = work / f"all{args.old}+{args.new}.jsonl"
        if not both.exists():
            with open(both, "wb") as out:
                for part in (base, facts):
                    out.write(part.read_bytes())
        whole = work / "whole.db"
        for p in (whole, Path(f"{whole}-graph")):
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
        runs.append(("all", child("import", str(both), "--db", str(whole)), "OLD + NEW into an empty store"))
    print(f"{args.new:,} facts into a store of {args.old:,}:")
    for name, (wall, peak, code, cpu) in (r[:2] for r in runs):
        print(f"  {name:9} {wall:8.1f} s wall {cpu:8.1f} s CPU  peak {peak:8.0f} MB  exit {code}")
    for name, run, what in runs[1:]:
        print(
            f"  update / {name} ({what}): {update[0] / run[0]:.2f} x wall,"
            f" {update[3] / run[3]:.2f} x CPU, {update[1] / run[1]:.2f} x peak memory"
        )
    if args.recall:
        lists, edges, precision, exact = edge_recall(target, args.recall)
        print(
            f"  update's lexical graph on {args.recall:,} facts against exact: recall@10 of the lists"
            f" {lists:.4f}, of the edges {edges:.4f} ({exact:,} exact edges), edge precision {precision:.4f}"
        )
    return 0 if all(r[1][2] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
