"""Browser speed at 100,000 facts (issues 5, 6): first paint, per-key cost, search, triage.

    python benchmarks/bench_ui.py [--n 100000] [--db PATH]

Builds (once, then reuses) a synthetic store through the real import path, no graph.
Key costs are reported net of a no-op key pressed the same way, which removes the
Pilot's own overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

WORDS = (
    "payments api ledger deploy friday postgres okta backup retention search index gateway "
    "timeout oncall rotation grafana budget mobile release flag webhook tenant quota cache "
    "billing invoice region cluster kubernetes staging incident review owner team"
).split()


def build_store(db: Path, n: int) -> None:
    from synapse_tui.core.interchange import import_facts, parse_file
    from synapse_tui.core.store import Store

    rng = random.Random(5)
    base = 1_700_000_000
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "facts.jsonl"
        with src.open("w", encoding="utf-8") as out:
            for i in range(n):
                created = base + rng.randrange(0, 86400 * 700)
                obj = {
                    "id": f"f-{i:06d}",
                    "text": " ".join(rng.choice(WORDS) for _ in range(rng.randrange(5, 16))),
                    "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created)),
                    "tier": rng.choice(("auto", "auto", "human")),
                    "corroborations": rng.randrange(0, 6),
                    "contradictions": rng.choice((0, 0, 0, 1, 3)),
                }
                if i and rng.random() < 0.05:
                    obj["supersedes"] = f"f-{rng.randrange(0, i):06d}"
                if rng.random() < 0.5:
                    obj["reinforcement_count"] = rng.randrange(1, 20)
                out.write(json.dumps(obj) + "\n")
        facts = parse_file(src)
        # keep supersession acyclic and single-successor-free of duplicates
        seen: set[str] = set()
        for f in facts:
            if f.supersedes in seen:
                f.supersedes = None
            elif f.supersedes:
                seen.add(f.supersedes)
        with Store.open(db, create=True) as store:
            import_facts(store, facts, str(src))


async def measure(db: Path) -> dict[str, float]:
    from synapse_tui.core.clock import Clock, parse_time
    from synapse_tui.core.config import Config
    from synapse_tui.core.store import Store
    from synapse_tui.ui.app import SynapseApp
    from synapse_tui.ui.widgets.fact_list import FactList

    figures: dict[str, float] = {}
    t0 = time.perf_counter()
    store = Store.open(db)
    app = SynapseApp(store=store, config=Config(), clock=Clock(parse_time("2026-12-01T00:00:00Z")))
    async with app.run_test(size=(120, 40)) as pilot:
        fl = app.query_one(FactList)
        while not fl.painted_rows:
            await asyncio.sleep(0.005)
        figures["first screen painted (s)"] = time.perf_counter() - t0

        async def per_key(keys: list[str], reps: int = 20) -> float:
            times = []
            for i in range(reps):
                key = keys[i % len(keys)]
                t = time.perf_counter()
                await pilot.press(key)
                await app.workers.wait_for_complete()
                await pilot.pause()
                times.append(time.perf_counter() - t)
            return statistics.median(times) * 1000

        noop = await per_key(["f12"])
        figures["no-op key (ms)"] = noop
        for label, keys in (
            ("cursor down/up", ["down", "up"]),
            ("page down/up", ["pagedown", "pageup"]),
            ("home/end", ["end", "home"]),
            ("queue switch", ["tab"]),
        ):
            figures[f"{label} net (ms)"] = await per_key(keys) - noop

        from synapse_tui.core import query as fq

        memory = app.memory
        fq.run(memory, "warm")  # the first FTS query pages the index in
        for q in ("payments", "trust<0.3 tier:auto payments", "deploy friday"):
            t = time.perf_counter()
            fq.run(memory, q)
            figures[f"search core '{q}' (ms)"] = (time.perf_counter() - t) * 1000

        async def settle() -> None:
            await app.workers.wait_for_complete()
            await pilot.pause()

        main = app.main
        t = time.perf_counter()
        for _ in range(10):
            await settle()
        idle = (time.perf_counter() - t) / 10
        for q in ("payments", "trust<0.3 tier:auto payments"):
            times = []
            for _ in range(5):
                main.query_one("#search").value = q
                await pilot.pause()
                main._debounce.stop()  # measure the search itself, not the typing debounce
                t = time.perf_counter()
                main.run_search(q)
                await settle()
                times.append(time.perf_counter() - t - idle)
                main.query_one("#search").value = ""
                await settle()
            figures[f"search in UI, results painted '{q}' (ms)"] = statistics.median(times) * 1000

        # triage (issue 6): keypress to the updated row, queue counts and status repainted
        fl.focus()
        main.action_queue(0)  # All: the queue-switch figure left another queue open
        await settle()
        pos = fl.position
        before = float(app.memory.scores.trust[pos])
        figures["triage v (verify) on the current fact net (ms)"] = await per_key(["v"]) - noop
        assert float(app.memory.scores.trust[pos]) != before, "verify changed nothing"
        figures["triage c / x alternating net (ms)"] = await per_key(["c", "x"]) - noop
        figures["undo (ctrl+z) net (ms)"] = await per_key(["ctrl+z"]) - noop
        times, idle_keys = [], []
        for _ in range(5):
            main.marks.update(fl.order[:100].tolist())
            main.marks_changed()
            await pilot.press("v")  # more than 20 marked: it asks first
            await settle()
            for key, into in (("y", times), ("f12", idle_keys)):
                t = time.perf_counter()
                await pilot.press(key)
                await settle()
                into.append(time.perf_counter() - t)
            assert not main.marks, "the bulk action did not apply"
        figures["bulk verify of 100 marked facts, from the confirming y, net (ms)"] = (
            statistics.median(times) - statistics.median(idle_keys)
        ) * 1000

        # end to end without the Pilot's own waits: the key's action to the list repainted
        async def direct(move: str) -> float:
            generation, painted = fl._generation, fl.painted_rows  # noqa: SLF001
            t = time.perf_counter()
            main.action_triage(move)
            while fl._generation == generation or fl.painted_rows == painted:  # noqa: SLF001
                await asyncio.sleep(0.0005)
                if time.perf_counter() - t > 5:
                    raise RuntimeError(f"{move}: the list was not repainted")
            return time.perf_counter() - t

        for move in ("verify", "undo"):
            times = []
            for _ in range(20):
                times.append(await direct(move))
                await settle()
            figures[f"triage {move}: action to repainted row and counts, no Pilot (ms)"] = (
                statistics.median(times) * 1000
            )
        # the worker alone (transaction, re-read of the changed facts, rescore, notice)
        fid = app.memory.ids[pos]
        times = []
        for _ in range(20):
            t = time.perf_counter()
            app._triage_now("verify", [fid], None, False)  # noqa: SLF001
            times.append(time.perf_counter() - t)
        figures["triage worker alone: transaction + refresh + notice (ms)"] = statistics.median(times) * 1000
    store.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--db", default=os.path.join(tempfile.gettempdir(), "synapse-bench-{n}.db"))
    args = parser.parse_args()
    db = Path(args.db.format(n=args.n))
    if not db.exists():
        t = time.perf_counter()
        build_store(db, args.n)
        print(f"built {db} with {args.n} facts in {time.perf_counter() - t:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / db.name  # triage writes: measure on a copy, keep the built store clean
        shutil.copy(db, work)
        for name, value in asyncio.run(measure(work)).items():
            print(f"{name:55} {value:8.2f}")


if __name__ == "__main__":
    main()
