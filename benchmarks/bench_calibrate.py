"""Figures for issue 20 (the score against verdicts).
Run: python benchmarks/bench_calibrate.py [N] [DIR]  (DIR keeps the built store for the next run)

1. `synapse-tui calibrate DB --verdicts --json` on a store of N facts (default 100,000) with
   N verdicts, whole process, fit included (bar: under 5 s);
2. the same report in process, read and fit apart;
3. the browser's Verdicts tab: from the key to the table and diagram painted, at N facts
   and 10,000 verdicts (bar: under 1 s).

The verdicts are simulated: each fact judged once at the end of its life, holding with the
probability its inputs give under constants other than the defaults (B0 -0.8, s 0.7,
W 3, base rate auto 0.7, gamma 0.3), so the fit has something to find. Audit rows are written
straight into the table, as triage would write them, with the score each fact had then.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from synth import END, write_synthetic_jsonl  # noqa: E402

from synapse_tui.core.base.clock import format_time  # noqa: E402
from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.review.memory import Memory  # noqa: E402
from synapse_tui.core.review.verdicts import read_verdicts, verdict_report  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from synapse_tui.core.trust.fit import Inputs, current_constants, replay  # noqa: E402
from synapse_tui.core.trust.row import ScoreRecord  # noqa: E402

TRUTH = current_constants(Config()) | {
    "freshness.b0": -0.8,
    "freshness.scale": 0.7,
    "confidence.prior_weight": 3.0,
    "confidence.base_rate_auto": 0.7,
    "supersession.gamma": 0.3,
}


def build(folder: Path, n: int, verdicts: int) -> Path:
    src = write_synthetic_jsonl(folder / "facts.jsonl", n)
    db = folder / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
        memory = Memory(store, Config(), END)
        sc, a = memory.scores, memory.arrays
        rng = np.random.default_rng(20)
        pick = np.sort(rng.choice(n, size=verdicts, replace=False))
        inputs = Inputs(
            sc.B[pick],
            a.r[pick].astype(float),
            a.s[pick].astype(float),
            sc.k[pick].astype(float),
            sc.tier[pick].astype(np.int64),
        )
        y = rng.random(verdicts) < replay(TRUTH, inputs, Config())
        wrong = rng.random(verdicts) < 0.7  # of the misses: contradicted, else replaced
        at = format_time(END)
        rows = []
        for j, i in enumerate(pick.tolist()):
            before = ScoreRecord.of(memory.ids[i], sc, a, i).to_json()
            action, after = (
                ("verify", {})
                if y[j]
                else ("contradict", {})
                if wrong[j]
                else ("supersede", {"superseded_by": "x"})
            )
            rows.append(
                (
                    at,
                    "user:bench",
                    action,
                    memory.ids[i],
                    j + 1,
                    "{}",
                    json.dumps(after),
                    None,
                    json.dumps(before),
                )
            )
        with store.transaction() as conn:
            conn.executemany(
                "INSERT INTO audit (at, actor, action, fact_id, batch, before, after, undoes, score_before)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
    return db


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    keep = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    with tempfile.TemporaryDirectory() as tmp:
        folder = keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        db = folder / "memory.db"
        if not db.exists():
            t = time.perf_counter()
            db = build(folder, n, n)
            print(f"built {n:,} facts and {n:,} verdicts in {time.perf_counter() - t:.1f} s")
        env = os.environ | {"SYNAPSE_NOW": format_time(END)}
        times, cpus = [], []
        for _ in range(3):
            t, before = time.perf_counter(), os.times()
            out = subprocess.run(
                [str(Path(sys.executable).parent / "synapse-tui"), "calibrate", str(db), "--verdicts", "--json"],
                capture_output=True, text=True, env=env, check=True,
            )  # fmt: skip
            times.append(time.perf_counter() - t)
            after = os.times()
            cpus.append(
                after.children_user + after.children_system - before.children_user - before.children_system
            )
        fit = json.loads(out.stdout)["fit"]
        print(
            f"calibrate --verdicts --json, {n:,} verdicts, whole process: {min(times):.2f} s (best of 3; {', '.join(f'{x:.2f}' for x in times)}; CPU {min(cpus):.2f} s)"
        )
        print(
            f"  decision {fit['decision']}; held-out log loss fitted {fit['heldout_log_loss_fitted']:.4f}, current {fit['heldout_log_loss_current']:.4f}"
        )
        print(
            "  fitted vs truth: "
            + ", ".join(f"{k.split('.')[1]} {fit['proposed'][k]:.3f}/{TRUTH[k]:.3f}" for k in fit["fitted"])
        )
        with Store.open(db, readonly=True) as store:
            t = time.perf_counter()
            read_verdicts(store)
            t_read = time.perf_counter() - t
            t = time.perf_counter()
            verdict_report(store, Config())
            t_all = time.perf_counter() - t
        print(f"  in process: reading the verdicts {t_read:.2f} s, the whole report {t_all:.2f} s")
        tab = folder / "tab.db"
        if not tab.exists():  # the same facts, the first 10,000 verdicts
            import shutil

            shutil.copy(db, tab)
            with Store.open(tab) as store, store.transaction() as conn:
                conn.execute("DELETE FROM audit WHERE seq > 10000")
        import asyncio

        for size in ((120, 50), (80, 24)):
            runs = [asyncio.run(paint_tab(tab, size)) for _ in range(3)]
            paints, fits, cpus = ([r[k] for r in runs] for k in range(3))
            print(
                f"browser's Verdicts tab at {n:,} facts and 10,000 verdicts, {size[0]}x{size[1]}: key to table"
                f" and diagram painted {min(paints):.2f} s (best of 3; {', '.join(f'{x:.2f}' for x in paints)};"
                f" CPU {min(cpus):.2f} s); the fit shown {min(fits):.2f} s"
            )


async def paint_tab(db: Path, size: tuple[int, int]) -> tuple[float, float]:
    """From the palette's command to the table and diagram on screen, the store loaded."""
    from synapse_tui.core.base.clock import Clock
    from synapse_tui.ui.app import SynapseApp
    from synapse_tui.ui.screens.calibration import CalibrationScreen

    app = SynapseApp(store=Store.open(db), config=Config(), clock=Clock(END), theme="textual-dark")
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        while app.memory is None or any(not w.is_finished for w in app.workers):
            await pilot.pause(0.05)
        t, cpu = time.perf_counter(), time.process_time()
        app.push_screen(CalibrationScreen("verdicts"))
        while not isinstance(app.screen, CalibrationScreen) or app.screen.table_painted_at is None:
            await pilot.pause(0.02)
        painted = app.screen.table_painted_at - t  # after the refresh that drew table and diagram
        used = time.process_time() - cpu  # every thread's CPU: the wall time of an idle machine
        while app.screen.report.fit is None:
            await pilot.pause(0.02)
        return painted, time.perf_counter() - t, used


if __name__ == "__main__":
    main()
