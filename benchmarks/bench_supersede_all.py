"""`Y` on many marked suggestions at once: `Triage.supersede_all` (one audited batch) against
the same pairs superseded one at a time (`Triage.apply("supersede", ...)`, one transaction
and one audit entry each), on a real SQLite file, in the same run.

    python benchmarks/bench_supersede_all.py [--pairs 1000] [--filler 20000]

The store: `--filler` unrelated facts, then `--pairs` (old, new) pairs, new created a day
after old (what a `replaced` suggestion promises). Each way runs on its own copy of the
file, three times (the median). Printed: seconds for each, the ratio single / batch, and the batch's time at a
quarter, a half and all the pairs (per pair: flat when linear, growing when quadratic).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from synapse_tui.core.base.clock import Clock, parse_time  # noqa: E402
from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.review.triage import Triage  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from tests.helpers import write_jsonl  # noqa: E402

NOW = Clock(parse_time("2026-01-01T00:00:00Z"))


def build(folder: Path, pairs: int, filler: int) -> Path:
    facts = [
        {
            "id": f"f{i}",
            "text": f"filler fact number {i} about topic {i % 97}",
            "created_at": "2025-01-01T00:00:00Z",
        }
        for i in range(filler)
    ]
    for i in range(pairs):
        facts.append(
            {
                "id": f"o{i}",
                "text": f"service {i} listens on port {1000 + i}",
                "created_at": "2025-02-01T00:00:00Z",
            }
        )
        facts.append(
            {
                "id": f"n{i}",
                "text": f"service {i} now listens on port {9000 + i}",
                "created_at": "2025-02-02T00:00:00Z",
            }
        )
    src = write_jsonl(folder / "facts.jsonl", facts)
    db = folder / "base.db"
    store = Store.open(db, create=True)
    import_facts(store, parse_file(src), str(src))
    store.close()
    return db


ROUNDS = 3  # each figure the median of this many runs, each on a fresh copy


def timed(base: Path, folder: Path, name: str, run) -> float:
    took = []
    for _ in range(ROUNDS):
        db = folder / f"{name}.db"
        shutil.copy(base, db)
        store = Store.open(db)
        triage = Triage(store, NOW, config=Config())
        t0 = time.perf_counter()
        run(triage)
        took.append(time.perf_counter() - t0)
        store.close()
        db.unlink()
    return statistics.median(took)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--filler", type=int, default=20000)
    args = ap.parse_args()
    n = args.pairs
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = build(folder, n, args.filler)
        pairs = [(f"o{i}", f"n{i}") for i in range(n)]

        def singles(t: Triage) -> None:
            for old, new in pairs:
                t.apply("supersede", [old], new)

        single = timed(base, folder, "single", singles)
        sizes = sorted({max(1, n // 4), max(1, n // 2), n})
        batch = {
            k: timed(base, folder, f"batch{k}", lambda t, k=k: t.supersede_all(pairs[:k])) for k in sizes
        }
    print(f"store: {args.filler:,} filler facts + {n:,} pairs (real SQLite file)")
    print(f"{n:,} single supersedes: {single:.3f} s ({1000 * single / n:.2f} ms each)")
    print(f"supersede_all of {n:,}: {batch[n]:.3f} s; single / batch = {single / batch[n]:.1f}x")
    for k in sizes:
        print(f"  supersede_all of {k:,}: {batch[k]:.3f} s ({1000 * batch[k] / k:.3f} ms per pair)")


if __name__ == "__main__":
    main()
