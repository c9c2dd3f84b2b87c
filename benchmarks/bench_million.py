"""Figures for issue 13 at 1,000,000 facts, d = 384, each beside a baseline from the same run.

    python benchmarks/bench_million.py [--n 1000000] [--db PATH] [--skip-graph] [--ui]

Builds (once, then reuses) a synthetic store: facts with events, supersession chains,
text for search, and clustered 384-d model embeddings (bench_graph.clustered). Then:

1. graph build through `rebuild_graph` (approximate above graph.approximate_above), with
   the recall@10 it measured; on a 100,000-fact subset, approximate against exact: the
   mutual-edge agreement, and the exact build time as the baseline;
2. +1,000 facts through `update_graph` in a new process (as `import` adds them), against
   the full build;
3. triage at a million: the write (Triage.apply) and `Memory.refresh` to updated arrays,
   per action kind, against a full rescore;
4. opening: Store.load + score + the first page's texts, cold (SQL) and warm (the load
   cache an earlier open wrote); search (FTS + ranking);
5. `score --json`, whole process, cold and warm: time to the first line, total, peak RSS,
   against `--limit 1` (the loaded memory alone);
6. with --ui: the browser's first paint and the process's peak RSS, on the first open of
   a copy (upgrade, SQL scan, cache written) and the next.
Run it alone on the machine: the graph build takes minutes on two cores.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import synthetic_arrays  # noqa: E402
from bench_graph import clustered  # noqa: E402
from synth import END, WORDS  # noqa: E402

from synapse_tui.core.base.clock import Clock, format_time  # noqa: E402
from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.graph import ann  # noqa: E402
from synapse_tui.core.graph import edges as g  # noqa: E402
from synapse_tui.core.graph.build import rebuild_graph, update_graph  # noqa: E402
from synapse_tui.core.graph.read import graph_info  # noqa: E402
from synapse_tui.core.review import query as fq  # noqa: E402
from synapse_tui.core.review.memory import Memory  # noqa: E402
from synapse_tui.core.review.triage import Triage, TriageError  # noqa: E402
from synapse_tui.core.store import loadcache
from synapse_tui.core.store.arrays import event_blob  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from synapse_tui.core.store.schema import migrate  # noqa: E402

CFG = Config()
D = 384


def say(text: str) -> None:
    print(text, flush=True)


def insert_facts(conn: sqlite3.Connection, start: int, n: int, X: np.ndarray, seed: int) -> None:
    """Facts start+1 .. start+n (1-based positions), with events, text and embeddings."""
    rng = np.random.default_rng(seed)
    a = synthetic_arrays(n, rng)
    ends = np.append(a.offsets[1:], len(a.events))
    words = np.array(WORDS)[rng.integers(0, len(WORDS), (n, 6))]
    chunk = 50_000
    for c0 in range(0, n, chunk):
        rows = []
        for i in range(c0, min(c0 + chunk, n)):
            pos = start + i + 1
            sup = int(a.supersedes[i])
            rows.append(
                (
                    pos,
                    f"f{pos:07d}",
                    f"fact {pos}: " + " ".join(words[i]),
                    format_time(float(a.created[i])),
                    float(a.created[i]),
                    ("auto", "human", "signed")[a.declared[i]],
                    int(a.r[i]),
                    int(a.s[i]),
                    event_blob(float(a.created[i]), a.events[a.offsets[i] + 1 : ends[i]].tolist()),
                    int(a.o1_count[i]) or None,
                    None if sup < 0 else start + sup + 1,
                    f"n{pos // 8}",
                )
            )
        conn.executemany(
            "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, o1_count,"
            " supersedes_pos, note, sig_state) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0)",
            rows,
        )
        conn.executemany(
            "UPDATE facts SET supersedes = ? WHERE pos = ?",
            [(f"f{r[10]:07d}", r[0]) for r in rows if r[10] is not None],
        )
        conn.executemany(
            "INSERT INTO embeddings (pos, kind, vec) VALUES (?, 'model', ?)",
            ((start + i + 1, X[i].tobytes()) for i in range(c0, min(c0 + chunk, n))),
        )


def build(db: Path, n: int) -> None:
    t = time.perf_counter()
    X = clustered(n + 1000)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    migrate(conn)
    conn.execute("BEGIN")
    insert_facts(conn, 0, n, X[:n], seed=42)
    conn.execute("INSERT INTO facts_fts (facts_fts) VALUES ('rebuild')")
    conn.execute("COMMIT")
    conn.close()
    np.save(db.with_suffix(".extra.npy"), X[n:])  # the +1,000 facts' vectors
    say(f"(built {db} with {n:,} facts in {time.perf_counter() - t:.0f} s)")


def rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_graph(db: Path, n: int, subset: bool = True) -> None:
    with Store.open(db) as store:
        t = time.perf_counter()
        with store.transaction() as conn:
            update = rebuild_graph(conn, CFG)
        t_build = time.perf_counter() - t
        info = graph_info(store._conn)
        edges = store._conn.execute("SELECT count(*) FROM semantic_edges").fetchone()[0]
        say(
            f"graph build at {n:,}: {t_build:.0f} s ({info.describe()}; {edges:,} edges; notes {update.notes})"
        )
    # as `synapse-tui import` adds them: a new process opens the store and its graph files
    out = subprocess.run(
        [sys.executable, __file__, "--add-1000", str(db), "--n", str(n)],
        capture_output=True,
        text=True,
        check=True,
    )
    t_inc, update = out.stdout.split(" ", 1)
    say(
        f"+1,000 facts incremental, in a new process: {float(t_inc):.1f} s ({update.strip()});"
        f" full build / incremental {t_build / float(t_inc):.0f}x"
    )
    if subset:
        subset_agreement()


def add_1000(db: Path, n: int) -> None:
    """Insert the 1,000 extra facts and time the graph update alone (a new process)."""
    X_extra = np.load(db.with_suffix(".extra.npy"))
    with Store.open(db) as store:
        conn = store._conn
        with store.transaction():
            insert_facts(conn, n, 1000, X_extra, seed=43)
            conn.execute(
                "INSERT INTO facts_fts (rowid, id, text) SELECT pos, id, text FROM facts WHERE pos > ?", (n,)
            )
        t = time.perf_counter()
        with store.transaction() as conn:
            update = update_graph(conn, None, CFG)
        t_inc = time.perf_counter() - t
    print(f"{t_inc} extended {update.extended}, rebuilt {update.rebuilt}")


def subset_agreement(n: int = 100_000) -> None:
    """Approximate against exact on 100,000 of the vectors: edges, recall, time."""
    X = clustered(n, seed=5)
    ranks = g.string_ranks([f"f{i:07d}" for i in range(n)])
    t = time.perf_counter()
    exact = g.exact_knn(X, ranks, 10)
    t_exact = time.perf_counter() - t
    t = time.perf_counter()
    built = ann.build_knn(X, ranks, 10, CFG.graph)
    t_approx = time.perf_counter() - t
    ea, eb, _ = g.mutual_edges(exact)
    aa, ab, _ = g.mutual_edges(built.knn)
    truth = set(zip(ea.tolist(), eb.tolist(), strict=True))
    ours = set(zip(aa.tolist(), ab.tolist(), strict=True))
    both = len(truth & ours)
    say(
        f"subset {n:,}: exact {t_exact:.0f} s (baseline), {built.method} {t_approx:.0f} s, ratio {t_exact / t_approx:.1f}x;"
        f" recall@10 {built.recall:.4f}; mutual edges: {both / len(truth):.4f} of exact's found,"
        f" {both / len(ours):.4f} of ours exact"
    )


def bench_triage(db: Path) -> None:
    with Store.open(db) as store:
        t = time.perf_counter()
        memory = Memory(store, CFG, END)
        say(f"(Memory loaded in {time.perf_counter() - t:.2f} s)")
        n = len(memory)
        t_full = min(_timed(lambda: memory.rescore(END)) for _ in range(3))
        rng = np.random.default_rng(9)
        sup = memory.arrays.supersedes
        chain_heads = np.flatnonzero((memory.k == 0) & (sup >= 0))
        loose = np.flatnonzero((memory.k == 0) & (sup < 0))
        moves = []
        for i in rng.choice(n, 10, replace=False).tolist():
            moves += [
                ("corroborate", i, None),
                ("contradict", i, None),
                ("verify", i, None),
                ("accept", i, None),
            ]
        for old, new in zip(
            rng.choice(chain_heads, 10, replace=False), rng.choice(loose, 10, replace=False), strict=True
        ):
            # a fact nothing supersedes yet supersedes the head of a chain: every depth below moves
            moves.append(("supersede", int(old), int(new)))
        writes: dict[str, list[float]] = {}
        refreshes: dict[str, list[float]] = {}
        moved_scores: list[int] = []
        for step, (action, i, by) in enumerate(moves):
            triage = Triage(store, Clock(END + step), actor="bench")
            t = time.perf_counter()
            try:
                out = triage.apply(action, [memory.ids[i]], None if by is None else memory.ids[by])
            except TriageError:  # accept on a fact already human or signed: nothing to change
                continue
            writes.setdefault(action, []).append(time.perf_counter() - t)
            t = time.perf_counter()
            changed = memory.refresh(out.fact_ids)
            refreshes.setdefault(action, []).append(time.perf_counter() - t)
            if action == "supersede":
                moved_scores.append(changed.size)
            if step % 7 == 0:
                t = time.perf_counter()
                out = triage.undo()
                writes.setdefault("undo", []).append(time.perf_counter() - t)
                t = time.perf_counter()
                memory.refresh(out.fact_ids)
                refreshes.setdefault("undo", []).append(time.perf_counter() - t)
        for action in refreshes:
            w, r = statistics.median(writes[action]), statistics.median(refreshes[action])
            say(
                f"triage {action:11s} at {n:,}: write {1000 * w:6.1f} ms, refresh to updated arrays"
                f" {1000 * r:5.1f} ms (max {1000 * max(refreshes[action]):5.1f});"
                f" full rescore {1000 * t_full:.0f} ms, ratio {t_full / r:.0f}x"
            )
        say(f"   each supersede changed {min(moved_scores)}-{max(moved_scores)} scores (the chain below it)")
        fresh = Memory(store, CFG, END)
        same = all(
            np.array_equal(getattr(memory.scores, f), getattr(fresh.scores, f)) for f in ("trust", "k", "B")
        )
        say(
            f"   after {sum(map(len, refreshes.values()))} actions the partial scores equal a full reload: {same}"
        )


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def bench_open(db: Path) -> None:
    """Opening, cold (the store scanned by SQL, which writes the load cache beside it) and
    warm (the cache: what every open after the first reads while no fact changes)."""
    cache = loadcache.cache_path(db)
    cache.unlink(missing_ok=True)
    with Store.open(db) as store:  # writable: an older store gets its m003 upgrade here
        pass
    figures = {}
    for kind in ("cold", "warm"):
        t0 = time.perf_counter()
        with Store.open(db, readonly=True) as store:
            if kind == "cold":
                cache.unlink(missing_ok=True)
            t = time.perf_counter()
            ids, arrays = store.load(CFG)
            t_load = time.perf_counter() - t
            del ids, arrays
            if kind == "cold":  # load + score below reads what the cold load wrote: cold again
                cache.unlink(missing_ok=True)
            t = time.perf_counter()
            memory = Memory(store, CFG, END)
            t_memory = time.perf_counter() - t
            t = time.perf_counter()
            top = np.argpartition(-memory.scores.trust, 60)[:60]
            page = top[np.lexsort((top, -memory.scores.trust[top]))]
            texts = store.texts(page)
            t_page = time.perf_counter() - t
            figures[kind] = (t_load, t_memory + t_page, time.perf_counter() - t0)
        say(
            f"open at {len(memory):,} ({kind}): Store.load {t_load:.2f} s; load + score {t_memory:.2f} s;"
            f" first page ({len(texts)} texts) {1000 * t_page:.0f} ms; total from open"
            f" {time.perf_counter() - t0:.2f} s"
        )
    (cl, cm, _), (wl, wm, _) = figures["cold"], figures["warm"]
    say(
        f"   cached over cold: Store.load {cl / wl:.0f}x faster, load + score + first page {cm / wm:.1f}x;"
        f" cache {cache.stat().st_size / 1e6:.0f} MB beside the store"
    )
    with Store.open(db) as store:  # a triage session and an import since: the cache is patched
        ids = store.ids_at([5, 50_000, 500_000, 900_000])
        triage = Triage(store, Clock(END), actor="bench")
        for action in ("corroborate", "contradict", "verify"):
            triage.apply(action, ids, None)
        n = store.count()
        with store.transaction() as conn:
            conn.execute(
                "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, sig_state)"
                " SELECT pos + ?, 'new-' || id, text, created_at, created_ts, tier, r, s, events, 0"
                " FROM facts WHERE pos <= 500",
                (n,),
            )
        t = time.perf_counter()
        ids, arrays = store.load(CFG)
        t_patch = time.perf_counter() - t
        t = time.perf_counter()
        ids, arrays = store.load(CFG)
        t_again = time.perf_counter() - t
    say(
        f"   after 12 triage actions on 4 facts and 500 new facts: Store.load {t_patch:.2f} s"
        f" (the cache patched with 504 facts), again {t_again:.2f} s; cold / patched {cl / t_patch:.0f}x"
    )
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, CFG, END)
        fq.run(memory, "warm")
        for q in ("payments", "payments api", "trust<0.3 tier:auto deploy", "cache worker queue"):
            times = [_timed(lambda q=q: fq.run(memory, q)) for _ in range(3)]
            hits = len(fq.run(memory, q))
            say(f"search '{q}' at {len(memory):,}: {1000 * min(times):.0f} ms ({hits:,} hits; target 150 ms)")


# The child's own peak (VmHWM, kB), written last on stderr: getrusage's ru_maxrss would also
# count the parent's pages it was forked with.
PEAK = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write(open('/proc/self/status').read().split('VmHWM:')[1].split()[0]))\n"
)


def bench_score_json(db: Path) -> None:
    env = dict(os.environ, SYNAPSE_NOW="2026-12-01T00:00:00Z")
    exe = [
        sys.executable,
        "-c",
        PEAK + "from synapse_tui.cli import main; main()",
        "score",
        str(db),
        "--json",
    ]

    def run(extra: list[str]) -> tuple[float, float, float, int]:
        t = time.perf_counter()
        proc = subprocess.Popen([*exe, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        first = proc.stdout.readline()
        t_first = time.perf_counter() - t
        lines = 1 if first else 0
        while block := proc.stdout.read(1 << 20):
            lines += block.count(b"\n")
        peak = float(proc.stderr.read().split()[-1]) / 1024
        proc.wait()
        return t_first, time.perf_counter() - t, peak, lines

    cache = loadcache.cache_path(db)
    for kind in ("cold", "warm"):
        cache.unlink(missing_ok=True)
        if kind == "warm":  # an open that loads the whole store writes the cache (a stream never does)
            with Store.open(db, readonly=True) as store:
                store.load(CFG)
        first1, total1, rss1, _ = run(["--limit", "1"])
        if kind == "cold":
            cache.unlink(missing_ok=True)
        first, total, rss, lines = run([])
        say(
            f"score --json ({kind}): first line {first:.2f} s, all {lines:,} lines {total:.1f} s, peak RSS"
            f" {rss:.0f} MB; --limit 1: {total1:.2f} s, peak RSS {rss1:.0f} MB; RSS ratio {rss / rss1:.2f}"
            " (1.0 = flat)"
        )


def bench_ui(db: Path) -> None:
    code = PEAK + (
        "import asyncio, sys\n"
        "from synapse_tui.core.base.clock import Clock, parse_time\n"
        "from synapse_tui.core.base.config import Config\n"
        "from synapse_tui.core.store.db import Store\n"
        "from synapse_tui.ui.app import SynapseApp\n"
        "from synapse_tui.ui.widgets.fact_list import FactList\n"
        "async def main():\n"
        "    app = SynapseApp(store=Store.open(sys.argv[1]), config=Config(),"
        " clock=Clock(parse_time('2026-12-01T00:00:00Z')))\n"
        "    async with app.run_test(size=(120, 40)):\n"
        "        fl = app.query_one(FactList)\n"
        "        while not fl.painted_rows:\n"
        "            await asyncio.sleep(0.005)\n"
        "        print('painted', flush=True)\n"
        "        await app.workers.wait_for_complete()\n"
        "asyncio.run(main())\n"
    )
    with tempfile.TemporaryDirectory(dir=db.parent) as tmp:
        work = Path(tmp) / db.name
        shutil.copy(db, work)
        for kind in ("first open", "next open"):  # the first upgrades the store, scans it, writes the cache
            t = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, "-c", code, str(work)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            painted = proc.stdout.readline()
            t_paint = time.perf_counter() - t
            out, err = proc.communicate(timeout=600)
            if proc.returncode or not painted:
                say(f"browser: failed ({err.strip().splitlines()[-1:]})")
                return
            say(
                f"browser ({kind}): first paint {t_paint:.2f} s (whole process, from the parent); peak RSS"
                f" {float(err.split()[-1]) / 1024:.0f} MB (target 2 GiB)"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--db", default=os.path.join(tempfile.gettempdir(), "synapse-million-{n}.db"))
    parser.add_argument("--skip-graph", action="store_true")
    parser.add_argument("--ui", action="store_true")
    parser.add_argument("--graph-only", action="store_true", help="the 1M build and +1,000 alone")
    parser.add_argument("--subset", action="store_true", help="approximate against exact on 100,000 alone")
    parser.add_argument("--add-1000", metavar="DB", help=argparse.SUPPRESS)  # bench_graph's new process
    args = parser.parse_args()
    if args.add_1000:
        add_1000(Path(args.add_1000), args.n)
        return
    if args.subset:
        subset_agreement()
        return
    for info in threadpool_info():
        say(
            f"BLAS/OpenMP: {info.get('internal_api')} {info.get('version')} kernel={info.get('architecture')}"
        )
    db = Path(args.db.format(n=args.n))
    if not db.exists():
        build(db, args.n)
    if args.graph_only:
        with tempfile.TemporaryDirectory(dir=db.parent) as tmp:
            work = Path(tmp) / db.name
            shutil.copy(db, work)
            shutil.copy(db.with_suffix(".extra.npy"), work.with_suffix(".extra.npy"))
            bench_graph(work, args.n, subset=False)
        return
    with tempfile.TemporaryDirectory(dir=db.parent) as tmp:  # opening upgrades and writes a cache: a copy
        work = Path(tmp) / db.name
        shutil.copy(db, work)
        bench_open(work)
        bench_score_json(work)
    if args.ui:
        bench_ui(db)
    if not args.skip_graph:
        with tempfile.TemporaryDirectory(dir=db.parent) as tmp:  # the graph and triage write: a copy
            work = Path(tmp) / db.name
            shutil.copy(db, work)
            shutil.copy(db.with_suffix(".extra.npy"), work.with_suffix(".extra.npy"))
            bench_triage(work)
            bench_graph(work, args.n)
    else:
        with tempfile.TemporaryDirectory(dir=db.parent) as tmp:
            work = Path(tmp) / db.name
            shutil.copy(db, work)
            bench_triage(work)
    say(f"peak RSS of this process {rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
