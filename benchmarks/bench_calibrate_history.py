"""Figures for issue 41 (the fit to what happened next, SPEC 14).
Run: python benchmarks/bench_calibrate_history.py [N] [DIR]  (DIR keeps the built store)

A store of N facts (default 100,000) made over two years: creation instants uniform over
730 days, a fifth of the facts replacing an earlier one (`supersedes`), a third reinforced
once or twice, a third `human`. Timed (bar: the history fit under 30 s):

1. `history_report` in process: the samples at every horizon/2 instant (90-day horizon)
   and the fit with its held-out blocks;
2. the baseline in the same run: one backtest at a single instant (SPEC 11.4);
3. `synapse-tui calibrate DB --backtest --fit --json`, whole process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.backtest import backtest, history_report
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store

DAY = 86400.0
END = 1_796_000_000.0  # 2026-12-01
START = END - 730 * DAY


def build(
    folder: Path, n: int, name: str = "history", provenance: Callable[[int], dict] | None = None
) -> Path:
    """Two years of `n` facts (a third human, a third reinforced, a fifth superseding an
    earlier one) in `folder/NAME.db`, built once; `provenance(i)`: fact i's, if any."""
    db = folder / f"{name}.db"
    if db.exists():
        return db
    rng = np.random.default_rng(41)
    created = np.sort(rng.uniform(START, END, n))
    src = folder / f"{name}.jsonl"
    with src.open("w", encoding="utf-8") as out:
        taken = np.zeros(n, dtype=bool)
        for i in range(n):
            obj = {"id": f"h{i}", "text": f"fact {i}", "created_at": format_time(float(created[i]))}
            if provenance is not None:
                obj["provenance"] = provenance(i)
            if rng.random() < 1 / 3:
                obj["tier"] = "human"
            if rng.random() < 1 / 3:
                times = created[i] + np.sort(rng.uniform(0, END - created[i], rng.integers(1, 3)))
                obj["reinforced_at"] = [format_time(float(t)) for t in times]
            if i > 100 and rng.random() < 0.2:
                j = int(rng.integers(max(0, i - 5000), i))
                if not taken[j]:
                    taken[j] = True
                    obj["supersedes"] = f"h{j}"
            out.write(json.dumps(obj) + "\n")
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    return db


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    folder = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    db = build(folder, n)
    print(f"store of {n:,} facts over two years: {time.perf_counter() - t:.1f} s to build (once)")
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, Config(), END)
        t = time.perf_counter()
        backtest(memory, END - 365 * DAY, 90)
        one = time.perf_counter() - t
        t = time.perf_counter()
        report, _ = history_report(memory, 90)
        fit_s = time.perf_counter() - t
    print(f"baseline: one backtest at one instant          {one:6.2f} s")
    print(
        f"history fit: {report['instants']} instants, {report['samples']:,} samples"
        f"  {fit_s:6.2f} s  ({fit_s / one:.1f}x the baseline; bar 30 s)"
    )
    print(f"  decision {report['fit']['decision']}: {report['fit']['reason'][:160]}")
    t = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "synapse_tui",
            "calibrate",
            str(db),
            "--backtest",
            "--fit",
            "--json",
            "--now",
            format_time(END),
        ],
        check=True,
        capture_output=True,
    )
    whole = time.perf_counter() - t
    print(
        f"calibrate --backtest --fit --json, whole process {whole:6.2f} s ({whole / one:.1f}x the baseline)"
    )


if __name__ == "__main__":
    main()
