"""The deletion times (`store.review.deleted_when`, meta `deleted.at.*`) on a real store of
54,803 facts, 12,771 of them deleted at their source, as the suggestions queue asks for them.

    python benchmarks/bench_deleted_when.py [--db PATH] [--mirror DIR] [--corpus DIR] [--write-results]

The store (built once into a temporary folder unless --db names one) is bench_queues.py's:
`import --from markdown` of a clone of ADTrauts/Vssyl with its git history, then the
flattened real memory of YanBerdin/rougecardinalcompany from the corpus. The run works on a
copy of it (it dismisses suggestions).

In one process, against the uncached read in the same run (every `deleted.at.*` row read and
decoded, as each call did before: `Review` without the store's per-state cache):

- asked again in one state of the facts (the cache's hit), as the mapping and as the list
  `deleted_at` gives the as-of and backtest readers;
- asked after a dismissal (an audit entry: no fact changes, so the same state) and after a
  corroboration (a fact changes: the times are read whole again);
- the suggestions queue's catch-up (`of_memory` with the kept finder) after one dismissal
  (`d`) and after one accept (`y`, a supersede: facts change), CPU, the old way (the times
  read whole into a new dict, compared with the kept ones) and this one's, alternating,
  median of five each.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

REPEAT = 25  # timings of each read (their median)
CATCH_UPS = 5  # catch-ups timed each way (their median)


def median_of(work: Callable[[], object], n: int = REPEAT) -> float:
    took = []
    for _ in range(n):
        t0 = time.perf_counter()
        work()
        took.append(time.perf_counter() - t0)
    return statistics.median(took)


def measure(db: Path) -> list[tuple[str, float, str, float, str]]:
    from synapse_tui.core.base.clock import Clock
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.review import suggestions
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.review.suggest_state import dismissed_entry
    from synapse_tui.core.review.triage import Action, Triage, TriageError
    from synapse_tui.core.store.db import Store
    from synapse_tui.core.store.review import Review

    rows: list[tuple[str, float, str, float, str]] = []
    with Store.open(db) as store:
        n, gone = store.count(), len(store.review.deleted_when())
        print(f"store {db}: {n:,} facts, {gone:,} with a deletion time")

        def uncached() -> object:  # the read every call made before: a Review of its own
            return Review(store._conn).deleted_when()

        base = median_of(uncached)
        label = "the uncached read"
        rows.append(("uncached read (every deleted.at row decoded)", base, label, base, "s"))
        rows.append(
            ("asked again, same state: the mapping", median_of(store.review.deleted_when), label, base, "s")
        )
        rows.append(
            (
                "asked again, same state: the list (deleted_at)",
                median_of(store.review.deleted_at),
                label,
                base,
                "s",
            )
        )

        clock = Clock()  # the wall clock: each action after the last
        triage = Triage(store, clock, config=Config())
        memory = Memory(store, Config(), clock.now())
        found = suggestions.of_memory(memory).found  # the kept finder, built once
        pairs = iter(found)

        def dismiss_one() -> None:
            s = next(pairs)
            triage.dismiss([(s.fact, dismissed_entry(s.kind, s.other))])

        def first_ask(change: Callable[[], None]) -> float:
            took = []
            for _ in range(CATCH_UPS):
                change()
                t0 = time.perf_counter()
                store.review.deleted_when()
                took.append(time.perf_counter() - t0)
            return statistics.median(took)

        rows.append(
            ("first ask after a dismissal (no fact changed)", first_ask(dismiss_one), label, base, "s")
        )
        live = next(fid for fid in memory.ids if fid not in {found[0].fact})
        rows.append(
            (
                "first ask after a corroboration (a fact changed)",
                first_ask(lambda: triage.apply(Action.CORROBORATE, [live])),
                label,
                base,
                "s",
            )
        )

        # the queue's catch-up after one action, the old way and this one's, in turn
        review = store.review
        mine = Review.deleted_when.__get__(review)
        old = lambda: dict(Review(store._conn).deleted_at())  # noqa: E731  (as the callers did)

        def caught_up(act: Callable[[], None]) -> float:
            act()
            memory.reload(clock.now())
            t0 = time.process_time()
            suggestions.of_memory(memory)
            return time.process_time() - t0

        def accept_one() -> None:  # the queue's `y`: the newer fact supersedes the older
            while True:
                s = next(pairs)
                try:
                    triage.apply(Action.SUPERSEDE, [s.fact], s.other)
                    return
                except TriageError:  # one fact names one predecessor: the next suggestion
                    continue

        for name, act in (("a dismissal", dismiss_one), ("an accept (a supersede)", accept_one)):
            cpu: dict[str, list[float]] = {"old": [], "new": []}
            for _ in range(CATCH_UPS):
                review.deleted_when = old  # type: ignore[method-assign]
                cpu["old"].append(caught_up(act))
                review.deleted_when = mine  # type: ignore[method-assign]
                caught_up(act)  # the kept finder holds this way's mapping again
                cpu["new"].append(caught_up(act))
            before = statistics.median(cpu["old"])
            base_name = "old way, same run"
            rows.append((f"catch-up after {name}, CPU: old way", before, base_name, before, "s"))
            now = statistics.median(cpu["new"])
            rows.append((f"catch-up after {name}, CPU: this way", now, base_name, before, "s"))
    for figure, value, _, against, _unit in rows:
        print(f"  {figure:52} {value * 1000:9.3f} ms  {value / against:7.4f}x")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", type=Path)
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("SYNAPSE_CORPUS", "/work/corpus")))
    ap.add_argument("--write-results", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="synapse-deleted-when-") as tmp:
        folder = Path(tmp)
        os.environ["SYNAPSE_DATA_DIR"] = str(folder / "data")
        if args.db is None:
            import bench_queues

            built = folder / "built"
            built.mkdir()
            source = bench_queues.build(built, args.mirror, args.corpus)
        else:
            source = args.db
        work = folder / "run"
        work.mkdir()
        for f in source.parent.glob(source.name + "*"):
            if f.is_file():
                shutil.copy2(f, work / f.name)
        (work / "memory.synapse.toml").write_text("")
        rows = measure(work / source.name)
    if args.write_results:
        from results import Results

        results = Results("bench_deleted_when.py")
        for figure, value, baseline, against, unit in rows:
            results.add(figure, value, baseline=baseline, against=against, unit=unit)
        results.save()


if __name__ == "__main__":
    main()
