"""What naming the file in an error raised while rows are read costs a read that raises none.

Run: python benchmarks/bench_fetch_state.py [--n 100000]

Every cursor of a store's connection is a `StoreCursor` (core/store/sqlite/state.py), whose
reads are wrapped to name the file in the errors SQLite raises while rows are fetched. On a
store of N synthetic facts, in the same process and on the same connection, each read is
timed through the store's cursor and through the driver's own cursor (the baseline: what
every read cost before), alternately, best of several: the figure is their ratio.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from synth import write_synthetic_jsonl  # noqa: E402

from synapse_tui.core.ingest.interchange import export_facts, import_facts, parse_file  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from synapse_tui.core.store.sqlite.state import StoreConnection  # noqa: E402

ROUNDS = 5


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def plain(self: StoreConnection, factory: object = None) -> sqlite3.Cursor:
    """The driver's own cursor: what every read of a store went through before."""
    return sqlite3.Connection.cursor(self, factory or sqlite3.Cursor)  # type: ignore[arg-type]


def both(read: Callable[[], object]) -> tuple[float, float]:
    """The best time of `read` through the store's cursor and through the driver's, the two
    taken in turn round after round (a busy machine slows both alike)."""
    ours, theirs = [], []
    wrapped = StoreConnection.cursor
    for _ in range(ROUNDS):
        ours.append(timed(read))
        StoreConnection.cursor = plain  # type: ignore[method-assign]
        try:
            theirs.append(timed(read))
        finally:
            StoreConnection.cursor = wrapped  # type: ignore[method-assign]
    return min(ours), min(theirs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    n = parser.parse_args().n
    with tempfile.TemporaryDirectory() as tmp:
        src = write_synthetic_jsonl(Path(tmp) / "facts.jsonl", n)
        db = Path(tmp) / "memory.db"
        with Store.open(db, create=True) as store:
            import_facts(store, parse_file(src), str(src))
        with Store.open(db) as store:
            conn = store._conn
            reads: dict[str, Callable[[], object]] = {
                "a loop over every fact's row": lambda: sum(1 for _ in conn.execute("SELECT * FROM facts")),
                "fetchall of every fact's row": lambda: len(conn.execute("SELECT * FROM facts").fetchall()),
                "export of every fact (the interchange objects)": lambda: sum(1 for _ in export_facts(store)),
                "load (the scoring arrays, aggregated in SQL)": lambda: store._load_sql('["x"]'),
            }
            print(f"{n:,} facts; best of {ROUNDS}; through the store's cursor / the driver's own")
            for name, read in reads.items():
                ours, theirs = both(read)
                print(f"  {name}: {ours * 1000:.0f} ms / {theirs * 1000:.0f} ms = {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
