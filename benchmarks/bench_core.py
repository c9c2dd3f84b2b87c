"""Figures for issue 2 (the headless core). Run: python benchmarks/bench_core.py [--quick]

1. scoring 1,000,000 facts (~5 events each) from arrays in memory, vectorised vs a
   straightforward per-fact Python loop over the same data, in the same run;
2. loading those arrays from a 1,000,000-fact store;
3. `synapse-tui score DB --json` on a 100,000-fact store, whole process;
4. `synapse-tui import` of 100,000 facts, whole process.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from synth import END, write_synthetic_jsonl  # noqa: E402

from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.graph.build import update_graph  # noqa: E402
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.store.arrays import event_blob  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from synapse_tui.core.trust.score import FactArrays, score  # noqa: E402

CFG = Config()


def synthetic_arrays(n: int, rng: np.random.Generator) -> FactArrays:
    counts = rng.integers(1, 10, n)  # mean 5 events, creation included
    offsets = np.zeros(n, np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    created = END - rng.uniform(0, 730, n) * 86400
    events = np.repeat(created, counts) + rng.uniform(0, 1, counts.sum()) * np.repeat(END - created, counts)
    events[offsets] = created
    sup = np.full(n, -1, np.int64)
    sup[49::50] = np.arange(48, n - 1, 50)[: len(sup[49::50])]
    return FactArrays(
        r=rng.poisson(2, n),
        s=rng.poisson(0.3, n),
        declared=rng.integers(0, 3, n).astype(np.int8),
        sig_state=np.zeros(n, np.int8),
        sig_trusted=np.zeros(n, bool),
        created=created,
        events=events,
        offsets=offsets,
        o1_count=np.where(rng.random(n) < 0.1, counts, 0),
        supersedes=sup,
    )


def loop_score(a: FactArrays, now: float) -> list[float]:
    """The straightforward per-fact loop the vectorised version is measured against."""
    c, f, p = CFG.confidence, CFG.freshness, CFG.provenance
    k_of: dict[int, int] = {}
    by_target: dict[int, list[int]] = {}
    for i, t in enumerate(a.supersedes.tolist()):
        if t >= 0:
            by_target.setdefault(t, []).append(i)

    def depth(i: int) -> int:
        if i not in k_of:
            k_of[i] = 0 if i not in by_target else 1 + min(depth(j) for j in by_target[i])
        return k_of[i]

    out = []
    ends = a.offsets.tolist()[1:] + [len(a.events)]
    events = a.events.tolist()
    for i, (start, stop) in enumerate(zip(a.offsets.tolist(), ends, strict=True)):
        r, s, tier = int(a.r[i]), int(a.s[i]), int(a.declared[i])
        tier = 1 if tier == 1 else 0
        base = (c.base_rate_auto, c.base_rate_human)[tier]
        conf = (r + base * c.prior_weight) / (r + s + c.prior_weight)
        if a.o1_count[i]:
            age = max((now - events[start]) / 86400, f.min_age_days)
            B = math.log(a.o1_count[i] / (1 - f.decay)) - f.decay * math.log(age)
        else:
            B = math.log(sum(max((now - t) / 86400, f.min_age_days) ** -f.decay for t in events[start:stop]))
        fresh = 1 / (1 + math.exp(-(B - f.b0) / f.scale))
        gate = (p.gate_auto, p.gate_human)[tier]
        out.append(conf * fresh * CFG.supersession.gamma ** depth(i) * gate)
    return out


def timed(fn, repeat: int = 1):
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def build_store(path: Path, a: FactArrays) -> None:
    """A real store with the arrays' facts, written in bulk (import is measured apart)."""
    n = len(a)
    ends = np.append(a.offsets[1:], len(a.events))
    with Store.open(path, create=True) as store, store.transaction() as conn:
        conn.executemany(
            "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, o1_count,"
            " supersedes_pos, sig_state) VALUES (?,?,?,?,?,?,?,?,?,?,?,0)",
            (
                (
                    i + 1,
                    f"f{i:07d}",
                    "t",
                    "2026-01-01T00:00:00Z",
                    float(a.created[i]),
                    ("auto", "human", "signed")[a.declared[i]],
                    int(a.r[i]),
                    int(a.s[i]),
                    event_blob(float(a.created[i]), a.events[a.offsets[i] + 1 : ends[i]].tolist()),
                    int(a.o1_count[i]) or None,
                    int(a.supersedes[i]) + 1 or None,
                )
                for i in range(n)
            ),
        )


def main() -> None:
    quick = "--quick" in sys.argv
    n = 100_000 if quick else 1_000_000
    rng = np.random.default_rng(42)
    a = synthetic_arrays(n, rng)
    print(f"facts: {n:,}, events: {len(a.events):,} ({len(a.events) / n:.1f} per fact)")

    vec_t, sc = timed(lambda: score(a, CFG, END), repeat=3)
    loop_t, loop = timed(lambda: loop_score(a, END))
    # the loop's tiers ignore signatures exactly as the synthetic data has none signed-valid
    same = np.allclose(
        np.where(a.declared == 2, np.nan, sc.trust),
        np.where(a.declared == 2, np.nan, loop),
        rtol=1e-12,
        equal_nan=True,
    )
    print(
        f"score, vectorised: {vec_t:.3f} s   per-fact loop: {loop_t:.2f} s   ratio {loop_t / vec_t:.0f}x"
        f"   (results agree: {same})"
    )

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "big.db"
        t = time.perf_counter()
        build_store(db, a)
        print(f"(built a {n:,}-fact store in {time.perf_counter() - t:.1f} s)")
        with Store.open(db, readonly=True) as store:
            load_t, (ids, loaded) = timed(lambda: store.load(CFG), repeat=3)
        print(f"load arrays from the store: {load_t:.3f} s")
        assert np.array_equal(loaded.events, a.events) and np.array_equal(loaded.r, a.r)

        src = write_synthetic_jsonl(Path(tmp) / "100k.jsonl", 100_000)
        db100 = Path(tmp) / "100k.db"
        t = time.perf_counter()
        facts = parse_file(src)
        parse_t = time.perf_counter() - t
        with Store.open(db100, create=True) as store:
            t = time.perf_counter()
            import_facts(store, facts, str(src))
            insert_t = time.perf_counter() - t
            t = time.perf_counter()
            with store.transaction() as conn:
                update_graph(conn, None, CFG)
            graph_t = time.perf_counter() - t
        print(
            f"import 100,000 facts: {parse_t + insert_t:.1f} s (parse and validate {parse_t:.1f} s,"
            f" one transaction {insert_t:.1f} s); then the neighbour graph: {graph_t:.1f} s"
        )
        exe = [sys.executable, "-m", "synapse_tui"]
        env = dict(os.environ, SYNAPSE_NOW="2026-12-01T00:00:00Z")
        baseline_t, _ = timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
        score_t, _ = timed(
            lambda: subprocess.run(
                [*exe, "score", str(db100), "--json"], check=True, env=env, stdout=subprocess.DEVNULL
            ),
            repeat=3,
        )
        print(
            f"score --json on 100,000 facts (whole process): {score_t:.2f} s"
            f"   (bare python start: {baseline_t:.2f} s)"
        )


if __name__ == "__main__":
    main()
