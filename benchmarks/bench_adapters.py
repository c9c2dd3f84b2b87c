"""Figures for issue 9 (adapters). Run: python benchmarks/bench_adapters.py [--memories N]

`synapse-tui import --from mem0 HISTORY --db DB` of 10,000 mem0 memories (a history.db in
mem0's current shape, with local Pacific ADD times; 30% updated once, 10% of those twice,
10% deleted), no vectors, whole CLI process: target under 10 s. Measured against the
baseline of the same run: a plain `synapse-tui import FILE.jsonl` of the very same facts
(the store exported as JSON Lines), so the ratio is the cost of reading mem0's files and
syncing. Then the second sync, which must find nothing to do.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

PACIFIC = timedelta(hours=-8)


def write_history(path: Path, n: int, seed: int = 9) -> tuple[int, int]:
    """A mem0 history.db of n memories; returns (events, deletions)."""
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    rows, deleted = [], 0
    topics = ["tea", "coffee", "Paris", "Lyon", "the payments API", "Fridays", "Rex", "the CI", "Postgres"]
    for i in range(n):
        mid = f"{i:08x}-0000-4000-8000-{rng.getrandbits(48):012x}"
        born = start + timedelta(seconds=rng.uniform(0, 600 * 86400))
        text = f"Memory {i}: the user mentioned {rng.choice(topics)} and {rng.choice(topics)}"
        created = (born + PACIFIC).replace(tzinfo=None).isoformat() + "-08:00"  # as mem0 wrote before 2026
        rows.append((f"a{i}", mid, None, text, "ADD", created, None, 0, "user", "user"))
        when = born
        for v in range(rng.choices([0, 1, 2], [70, 27, 3])[0]):
            when += timedelta(days=rng.uniform(1, 60))
            new = f"{text} (revised {v + 1})"
            rows.append((f"u{i}.{v}", mid, text, new, "UPDATE", created, when.isoformat(), 0, "user", "user"))
            text = new
        if rng.random() < 0.10:
            deleted += 1
            when += timedelta(days=rng.uniform(1, 30))
            rows.append((f"d{i}", mid, text, None, "DELETE", created, when.isoformat(), 1, None, None))
    rows.sort(key=lambda r: r[6] or r[5])  # the order mem0 would have written them in
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT, new_memory TEXT, event TEXT,"
        " created_at DATETIME, updated_at DATETIME, is_deleted INTEGER, actor_id TEXT, role TEXT)"
    )
    conn.executemany("INSERT INTO history VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    conn.commit()
    conn.close()
    return len(rows), deleted


def timed(cmd: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    args = parser.parse_args()
    exe = shutil.which("synapse-tui") or str(Path(sys.executable).with_name("synapse-tui"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        events, deleted = write_history(tmp / "history.db", args.memories)
        db = tmp / "memory.db"
        secs, out = timed(
            [exe, "import", "--from", "mem0", str(tmp / "history.db"), "--db", str(db), "--json"]
        )
        result = json.loads(out)
        print(
            f"import --from mem0: {args.memories:,} memories, {events:,} history events -> "
            f"{result['added']:,} facts, {result['newly_deleted']:,} deleted, in {secs:.2f} s (target < 10 s)"
        )
        _, exported = timed([exe, "export", str(db)])
        (tmp / "same.jsonl").write_text(exported, encoding="utf-8")
        base, _ = timed([exe, "import", str(tmp / "same.jsonl"), "--db", str(tmp / "baseline.db")])
        print(f"baseline, plain import of the same {result['added']:,} facts as JSON Lines: {base:.2f} s")
        print(f"ratio mem0 / JSON Lines: {secs / base:.2f}x")
        again, out = timed(
            [exe, "import", "--from", "mem0", str(tmp / "history.db"), "--db", str(db), "--json"]
        )
        second = json.loads(out)
        print(
            f"second sync (nothing new): {again:.2f} s, added {second['added']}, "
            f"newly deleted {second['newly_deleted']}, unchanged {second['unchanged']:,}"
        )


if __name__ == "__main__":
    main()
