"""MCP read latency at 100,000 facts (issue 10: reads under 50 ms).

    python benchmarks/bench_mcp.py [--n 100000] [--db PATH] [--calls 60] [--no-stdio] [--load]

Builds (once, then reuses) a synthetic store through the real import path and graph
update (benchmarks/synth.py). Then, in one run: a bare `Memory.row` call (the baseline:
what one fact's score costs when nothing else is done), each tool called through the
SDK's own `MCPServer.call_tool` (argument validation, the tool, structured-output
validation), the first read after another process wrote (partial refresh, then a full
reload after an import), and `show` over a real stdio pipe with the SDK's client.
Median and p95 per tool, and the ratio of the median to the baseline. The first word
search of a process is timed on its own (it reads FTS5's per-fact token counts once).
With --load, a busy process spins on the other core while the reads run (a browser or an
import beside the server), to see how the reads hold up when they do not have it.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio  # noqa: E402
from synth import write_synthetic_jsonl  # noqa: E402

from synapse_tui.core.agent import Recall  # noqa: E402
from synapse_tui.core.base.clock import Clock, parse_time  # noqa: E402
from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402

NOW = "2026-12-01T00:00:00Z"


def build_store(db: Path, n: int) -> None:
    from synapse_tui.core.graph.build import update_graph
    from synapse_tui.core.ingest.interchange import import_facts, parse_file

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        src = write_synthetic_jsonl(Path(tmp) / "facts.jsonl", n)
        with Store.open(db, create=True) as store:
            result = import_facts(store, parse_file(src), str(src))
            with store.transaction() as conn:
                update_graph(conn, result.new_positions, Config())
    print(f"built {db} ({n} facts, graph included) in {time.perf_counter() - t0:.0f} s", flush=True)


def timed(fn, calls: int) -> list[float]:
    out = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def report(name: str, ms: list[float], base: float) -> None:
    ms = sorted(ms)
    med = statistics.median(ms)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    print(
        f"  {name:<34} median {med:8.2f} ms   p95 {p95:8.2f} ms   {med / base:9.0f} x Memory.row", flush=True
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--db", type=Path, default=None)
    ap.add_argument("--calls", type=int, default=60)
    ap.add_argument("--no-stdio", action="store_true")
    ap.add_argument("--load", action="store_true", help="keep the other core busy during the reads")
    args = ap.parse_args()
    db = args.db or Path(tempfile.gettempdir()) / f"synapse-bench-mcp-{args.n}.db"
    if not db.exists():
        build_store(db, args.n)

    from synapse_tui.core.graph.read import neighbours
    from synapse_tui.mcp_server import build_server

    work = Path(tempfile.mkdtemp()) / "bench.db"  # the writes below must not grow the cached store
    shutil.copy(db, work)
    store = Store.open(work)
    t0 = time.perf_counter()
    recall = Recall(store, Config(), Clock(parse_time(NOW)))
    print(f"{db}: {len(recall.memory)} facts, memory loaded in {time.perf_counter() - t0:.2f} s")
    server = build_server(recall)
    rng = random.Random(3)
    ids = recall.memory.ids

    def call(name: str, **arguments) -> None:
        result = anyio.run(server.call_tool, name, arguments)
        assert not result.is_error, result.content

    row_ms = timed(lambda: recall.memory.row(rng.randrange(len(ids))), 2000)
    base = statistics.median(row_ms)
    print(f"baseline: Memory.row median {base * 1000:.1f} us")
    print(f"first word search of the process: {timed(lambda: call('search', query='billing'), 1)[0]:.1f} ms")
    load = None
    if args.load:
        load = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        print(f"reads, through MCPServer.call_tool, with a busy process beside them (pid {load.pid}):")
    else:
        print("reads, through MCPServer.call_tool:")
    report(
        "search 'payments' (a quarter of facts)",
        timed(lambda: call("search", query="payments"), args.calls),
        base,
    )
    report(
        "search 'payments api' (limit 10)",
        timed(lambda: call("search", query="payments api"), args.calls),
        base,
    )
    report(
        "search 'trust<0.3 tier:auto'",
        timed(lambda: call("search", query="trust<0.3 tier:auto"), args.calls),
        base,
    )
    report("search '' (top trust, limit 10)", timed(lambda: call("search", query=""), args.calls), base)
    report(
        "search 'is:stale cache' (limit 50)",
        timed(lambda: call("search", query="is:stale cache", limit=50), args.calls),
        base,
    )
    report("show", timed(lambda: call("show", id=rng.choice(ids)), args.calls), base)
    report(
        "search 's00042' (an id prefix: 10 matches)",
        timed(lambda: call("search", query="s00042"), args.calls),
        base,
    )
    report("neighbours", timed(lambda: call("neighbours", id=rng.choice(ids)), args.calls), base)
    print("of which the layers below the server (same calls, no MCP):")
    report("Store.search 'payments'", timed(lambda: store.search("payments"), args.calls), base)
    report("Store.search 'payments api'", timed(lambda: store.search("payments api"), args.calls), base)
    report(
        "graphview.neighbours",
        timed(lambda: neighbours(store, rng.choice(ids), Config()), args.calls),
        base,
    )
    if load is not None:
        load.kill()
        load.wait()

    print("writes (not held to 50 ms; each is one audited transaction):")
    report("corroborate", timed(lambda: call("corroborate", id=rng.choice(ids)), 10), base)
    report("remember", timed(lambda: call("remember", text=f"bench note {rng.random()} payments"), 3), base)
    t0 = time.perf_counter()
    recall.settle()
    print(f"  then the neighbour graph caught up in the background: {time.perf_counter() - t0:.1f} s more")

    print("first read after another process wrote:")
    other = Store.open(work)

    def external_triage() -> None:
        from synapse_tui.core.review.triage import Triage

        Triage(other, Clock(parse_time(NOW)), "user:bench", config=Config()).apply(
            "verify", [rng.choice(ids)]
        )

    samples = []
    for _ in range(10):
        external_triage()
        samples += timed(lambda: call("show", id=rng.choice(ids)), 1)
    report("show after a triage elsewhere", samples, base)
    samples = []
    for _ in range(3):
        with other.transaction() as conn:
            conn.execute("UPDATE facts SET deleted = 1 - deleted WHERE pos = 1")  # not audited
        samples += timed(lambda: call("show", id=rng.choice(ids)), 1)
    report("show after an unaudited write (reload)", samples, base)
    other.close()
    store.close()

    if not args.no_stdio:
        stdio(work, ids, rng, args.calls, base)


def stdio(db: Path, ids: list[str], rng: random.Random, calls: int, base: float) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from synapse_tui.cli import main; main()", "mcp", str(db)],
        env={"SYNAPSE_NOW": NOW},
    )

    async def run() -> tuple[float, list[float], list[float]]:
        t0 = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("show", {"id": ids[0]})
            started = time.perf_counter() - t0
            shows, searches = [], []
            for _ in range(calls):
                t = time.perf_counter()
                await session.call_tool("show", {"id": rng.choice(ids)})
                shows.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                await session.call_tool("search", {"query": "payments api"})
                searches.append((time.perf_counter() - t) * 1000)
            return started, shows, searches

    started, shows, searches = anyio.run(run)
    print(f"over stdio with the SDK client (server start + first answer {started:.2f} s):")
    report("show (round trip)", shows, base)
    report("search 'payments api' (round trip)", searches, base)


if __name__ == "__main__":
    main()
