"""How long suggestions take (issue 39): every standing suggestion of a 100,000-fact store
(target: under 30 s), and one new fact against an index already built (target: under
50 ms), each beside a baseline timed in the same run on the same store: reading every
record (the floor any pass over the facts pays) and scoring every fact (`score --json`'s
work), and for one fact, rebuilding the whole index.

    python benchmarks/bench_suggest.py [--n 100000] [--write-results]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Results  # noqa: E402
from synth import world_texts, write_synthetic_jsonl  # noqa: E402

from synapse_tui.core.base.clock import parse_time  # noqa: E402
from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.review.memory import Memory  # noqa: E402
from synapse_tui.core.review.suggest import Item, ReplacedFinder  # noqa: E402
from synapse_tui.core.review.suggestions import items, standing  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402

NOW = parse_time("2026-12-01T00:00:00Z")


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def deleted(facts: list[Item]) -> list[Item]:
    """`facts` with every third fact of each note gone when the next fact of its note came."""
    by_note: dict[str | None, list[int]] = {}
    for f in sorted(range(len(facts)), key=lambda k: facts[k].created):
        by_note.setdefault(facts[f].note, []).append(f)
    gone: dict[int, float] = {}
    for members in by_note.values():
        for a, b in zip(members[::3], members[1::3], strict=False):
            gone[a] = facts[b].created
    return [dataclasses.replace(f, gone=gone.get(k)) for k, f in enumerate(facts)]


def with_deletions(facts: list[Item], probes: list[Item]) -> tuple[float, int, float]:
    """The finder's build over `facts` with every third fact gone when the next fact of its
    note came: seconds, suggestions, and the median of adding each probe."""
    marked = deleted(facts)
    t, finder = timed(lambda: ReplacedFinder.build(marked))
    n = len(finder.suggestions())
    times = []
    for probe in probes:
        start = time.perf_counter()
        finder.add(dataclasses.replace(probe, id=probe.id + "-g"))
        times.append(time.perf_counter() - start)
    return t, n, statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--write-results", action="store_true")
    args = ap.parse_args()
    results = Results("bench_suggest.py")
    with tempfile.TemporaryDirectory() as tmp:
        src = write_synthetic_jsonl(Path(tmp) / "f.jsonl", args.n, texts=world_texts(args.n))
        db = os.path.join(tmp, "s.db")
        with Store.open(db, create=True) as store:
            import_facts(store, parse_file(src), str(src))
        with Store.open(db, readonly=True) as store:
            t_records, _ = timed(lambda: list(store.records()))
            t_score, _ = timed(lambda: Memory(store, Config(), NOW))
            t_all, found = timed(lambda: standing(store, ["replaced"]))
            standing(store)  # every kind: kept beside the store for the next process
            t_again, _ = timed(lambda: standing(store))
            facts = items(store)
        n_found = len(found.found)
        print(
            f"{args.n:,} facts: {n_found:,} suggestions in {t_all:.2f} s;"
            f" reading every record {t_records:.2f} s; scoring every fact {t_score:.2f} s"
        )
        results.add(
            f"suggest, {args.n:,} facts ({n_found:,} suggestions)",
            t_all,
            baseline="reading every record",
            against=t_records,
        )
        results.add(f"suggest, {args.n:,} facts", t_all, baseline="scoring every fact", against=t_score)
        results.add(
            "suggest again, the store unchanged (kept beside it)",
            t_again,
            baseline="reading every record",
            against=t_records,
        )
        print(f"again, kept beside the store: {t_again:.2f} s")
        # one new fact: an older fact's next version, against the index of all the others
        t_build, finder = timed(lambda: ReplacedFinder.build(facts[:-1]))
        last = facts[-1]
        probes = []
        for k in range(20):
            base = facts[k * (len(facts) // 20)]
            probes.append(Item(f"new-{k}", base.text + " now", NOW + k, base.note, base.entities))
        times = []
        hits = 0
        for probe in probes:
            t = time.perf_counter()
            got = finder.add(probe)
            times.append(time.perf_counter() - t)
            hits += bool(got)
        one = statistics.median(times)
        print(
            f"one new fact: median {one * 1000:.1f} ms, max {max(times) * 1000:.1f} ms over {len(times)}"
            f" ({hits} found their older fact); a full rebuild {t_build:.2f} s ({last.id} left out)"
        )
        results.add("one new fact, median of 20", one, baseline="rebuilding the index", against=t_build)
        results.add(
            "one new fact, slowest of 20", max(times), baseline="rebuilding the index", against=t_build
        )
        # a store that records deletions (a git-synced one): a third of the facts left their
        # source the instant the next fact of their note was written
        t_gone, n_gone, one_gone = with_deletions(facts, probes)
        print(
            f"with deletions recorded: the finder {t_gone:.2f} s against {t_build:.2f} s without"
            f" ({n_gone:,} suggestions); one new fact median {one_gone * 1000:.1f} ms"
        )
        results.add(
            "the finder, a third of the facts deleted", t_gone, baseline="none deleted", against=t_build
        )
        results.add("one new fact, deletions recorded, median of 20", one_gone, unit="s")
    if args.write_results:
        results.save()


if __name__ == "__main__":
    main()
