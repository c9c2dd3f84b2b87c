"""Word search at a million facts (issue 26, point 3): an agent's `search` under 50 ms.

    python benchmarks/bench_words.py [--n 1000000] [--db PATH] [--calls 15] [--write-results]

Builds (once, then reuses) a store of facts and their full-text index, no embeddings: each
text six of 22 words (benchmarks/synth.py WORDS), so a word is in about a quarter of the
facts. Then, in one run, alternating so a busy machine weighs on both alike:

- `Store.search_any` for one to six broad words, with the term rows kept between
  searches (store/words.py) and with nothing kept (the cache emptied before each call: what
  every search cost before), the latter the baseline;
- the MCP tool's body (`Recall.search`, limit 10) on the same words: ranking only the
  matches that can reach the page (relevance.py `_head`) against ranking every match as
  before, both with the rows kept; and kept against not; a filters-only search
  (`tier:auto`, no FTS) as a floor;
- a 1 MB query, refused.

Each figure is a median with the load average beside it.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import synthetic_arrays  # noqa: E402
from results import Results  # noqa: E402
from synth import WORDS  # noqa: E402

from synapse_tui.core.agent import Recall  # noqa: E402
from synapse_tui.core.base.clock import Clock, format_time, parse_time  # noqa: E402
from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.base.errors import SynapseError  # noqa: E402
from synapse_tui.core.review import query as fq  # noqa: E402
from synapse_tui.core.review.relevance import fts_terms  # noqa: E402
from synapse_tui.core.store.arrays import event_blob  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from synapse_tui.core.store.schema import migrate  # noqa: E402

NOW = "2026-12-01T00:00:00Z"
FIGURES = Results("bench_words.py")
QUERIES = (
    "payments",
    "payments api",
    "When did the payments api deploy?",
    "payments api deploy cache",
    "payments api deploy cache queue worker",
)


def build(db: Path, n: int) -> None:
    t = time.perf_counter()
    rng = np.random.default_rng(42)
    a = synthetic_arrays(n, rng)
    ends = np.append(a.offsets[1:], len(a.events))
    drawn = np.array(WORDS)[rng.integers(0, len(WORDS), (n, 6))]
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    migrate(conn)
    conn.execute("BEGIN")
    for c0 in range(0, n, 50_000):
        rows = [
            (
                i + 1,
                f"f{i + 1:07d}",
                f"fact {i + 1}: " + " ".join(drawn[i]),
                format_time(float(a.created[i])),
                float(a.created[i]),
                ("auto", "human", "signed")[a.declared[i]],
                int(a.r[i]),
                int(a.s[i]),
                event_blob(float(a.created[i]), a.events[a.offsets[i] + 1 : ends[i]].tolist()),
            )
            for i in range(c0, min(c0 + 50_000, n))
        ]
        conn.executemany(
            "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, sig_state)"
            " VALUES (?,?,?,?,?,?,?,?,?,0)",
            rows,
        )
    conn.execute("INSERT INTO facts_fts (facts_fts) VALUES ('rebuild')")
    conn.execute("COMMIT")
    conn.close()
    print(f"(built {db} with {n:,} facts in {time.perf_counter() - t:.0f} s)", flush=True)


def forget(store: Store) -> None:
    store.words.terms.clear()


def every_match(recall: Recall, q: str) -> float:
    """The MCP search as it was before `_head`: every match ranked, the page cut after."""
    was = fq.rank
    fq.rank = lambda memory, query, mask=None, limit=None: was(memory, query, mask)
    try:
        return ms(lambda: recall.search(q, 10))
    finally:
        fq.rank = was


def ms(fn) -> float:
    t = time.perf_counter()
    fn()
    return 1000 * (time.perf_counter() - t)


def paired(kept, cold, calls: int) -> tuple[float, float, tuple[float, ...]]:
    """Medians of `kept` and `cold`, called alternately, and the highest load average seen."""
    kept()
    a, b, load = [], [], os.getloadavg()
    for _ in range(calls):
        b.append(cold())
        a.append(kept())
        load = tuple(max(x, y) for x, y in zip(load, os.getloadavg(), strict=True))
    return statistics.median(a), statistics.median(b), load


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--db", type=Path, default=None)
    ap.add_argument("--calls", type=int, default=15)
    ap.add_argument("--write-results", action="store_true")
    args = ap.parse_args()
    db = args.db or Path(f"/tmp/bench_words_{args.n}.db")
    if not db.exists():
        build(db, args.n)
    store = Store.open(db)
    recall = Recall(store, Config(), Clock(parse_time(NOW)))
    n = store.count()

    def note(figure: str, kept: float, cold: float, load: tuple[float, ...], base: str) -> None:
        FIGURES.add(f"{figure} (load {load[0]:.1f})", kept / 1000, baseline=base, against=cold / 1000)
        print(
            f"{figure}: {kept:.1f} ms; {base}: {cold:.1f} ms ({kept / cold:.2f}x); load {load[0]:.2f}",
            flush=True,
        )

    for q in QUERIES:
        terms = fts_terms(q.split())
        hits = len(store.search_any(terms).pos)
        what = f"'{q}' ({len(terms)} terms, {hits:,} of {n:,} facts)"
        kept, cold, load = paired(
            lambda t=terms: ms(lambda: store.search_any(t)),
            lambda t=terms: (forget(store), ms(lambda: store.search_any(t)))[1],
            args.calls,
        )
        note(f"Store.search_any {what}, term rows kept", kept, cold, load, "nothing kept")
        page, full, load = paired(
            lambda q=q: ms(lambda: recall.search(q, 10)), lambda q=q: every_match(recall, q), args.calls
        )
        note(f"MCP search {what}, rows kept, the page ranked", page, full, load, "every match ranked")
        kept, cold, load = paired(
            lambda q=q: ms(lambda: recall.search(q, 10)),
            lambda q=q: (forget(store), ms(lambda: recall.search(q, 10)))[1],
            args.calls,
        )
        note(f"MCP search {what}, rows kept", kept, cold, load, "nothing kept")
    floor, _, load = paired(lambda: ms(lambda: recall.search("tier:auto", 10)), lambda: 1.0, args.calls)
    print(f"MCP search, filters only: {floor:.1f} ms; load {load[0]:.2f}", flush=True)
    FIGURES.add(f"MCP search, filters only, no words (load {load[0]:.1f})", floor / 1000)

    def refused() -> None:
        try:
            recall.search("payments " * 110_000, 10)
        except SynapseError as exc:
            assert "at most" in str(exc)
        else:
            raise AssertionError("a 1 MB query was served")

    big = statistics.median(ms(refused) for _ in range(5))
    print(f"a 1 MB query, refused: {big:.1f} ms", flush=True)
    FIGURES.add("a 1 MB query (110,000 words), refused", big / 1000)
    store.close()
    if args.write_results:
        FIGURES.save()


if __name__ == "__main__":
    main()
