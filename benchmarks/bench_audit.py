"""A triage action on a store whose audit is long, against the same store's audit short.

    python benchmarks/bench_audit.py [--facts 10000] [--entries 100000] [--rounds 40] [--write-results]

Every triage action numbers its batch max(batch) + 1 of the audit. One store of `--facts`
synthetic facts is corroborated fact by fact (median of `--rounds`), first with its audit
as the import left it, then after `--entries` more entries (as years of triage leave), once
with the audit's batch index (m006) and once with it dropped, which is how a store before
m006 answered. With the index, a long audit should cost an action nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Results  # noqa: E402
from synth import write_synthetic_jsonl  # noqa: E402

from synapse_tui.core.base.clock import Clock  # noqa: E402
from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.review.triage import Triage  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from synapse_tui.core.store.read import answer  # noqa: E402

NOW = "2026-12-01T00:00:00Z"
FIGURES = Results("bench_audit.py")


def action_seconds(store: Store, ids: list[str]) -> float:
    """Median seconds of one corroborate, a fact at a time."""
    triage = Triage(store, Clock.from_option(NOW), "user:bench", config=Config())
    times = []
    for fid in ids:
        start = time.perf_counter()
        triage.apply("corroborate", [fid])
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def grow_audit(store: Store, entries: int) -> None:
    """`entries` more audit entries, two to a batch, as triage writes them."""
    with store.transaction() as conn:
        first = answer(conn, store.audit.next_batch_read())
        conn.executemany(
            "INSERT INTO audit (at, actor, action, fact_id, batch, before, after, undoes, score_before)"
            " VALUES (?, 'user:old', 'corroborate', ?, ?, '{\"corroborations\": 1}',"
            " '{\"corroborations\": 2}', NULL, '{\"trust\": 0.5}')",
            [(NOW, f"s{i % 1000:07d}", first + i // 2) for i in range(entries)],
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = write_synthetic_jsonl(Path(tmp) / "facts.jsonl", args.facts)
        with Store.open(Path(tmp) / "audit.db", create=True) as store:
            import_facts(store, parse_file(src), str(src))
            ids = [f"s{i:07d}" for i in range(args.rounds * 3)]
            short = action_seconds(store, ids[: args.rounds])
            grow_audit(store, args.entries)
            indexed = action_seconds(store, ids[args.rounds : 2 * args.rounds])
            with store.transaction() as conn:
                conn.execute("DROP INDEX audit_batch")
            scanned = action_seconds(store, ids[2 * args.rounds :])
    what = f"corroborate, {args.facts:,} facts, {args.entries:,} more audit entries (median of {args.rounds})"
    base = "the same store's audit short"
    FIGURES.add(f"{what}, batch index", indexed, baseline=base, against=short)
    FIGURES.add(f"{what}, no batch index (before m006)", scanned, baseline=base, against=short)
    print(
        f"corroborate: audit short {short * 1000:.2f} ms; {args.entries:,} more entries, with the batch index"
        f" {indexed * 1000:.2f} ms ({indexed / short:.2f}x), without {scanned * 1000:.2f} ms ({scanned / short:.2f}x)"
    )
    if args.write_results:
        FIGURES.save()


if __name__ == "__main__":
    main()
