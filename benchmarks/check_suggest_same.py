"""Whether the replaced finder of this tree finds exactly what the finder of another revision
finds (issue 39: a faster build must not change a single suggestion).

    python benchmarks/check_suggest_same.py [--base REV] [--corpus DIR] [--n 100000] [--db PATH]...

The facts: every repository of the real-memory corpus (`DIR/manifest.json`, each one's
`flat.jsonl`), twice: as flattened, and with each version's deletion from its file recorded
(`gone`, from its `truth.jsonl`, as benchmarks/bench_suggest_real.py reads it); the
synthetic store of benchmarks/bench_suggest.py (`--n` facts through a real SQLite store), as
it is and with a third of its facts deleted (`bench_suggest.deleted`); and each `--db` store.
Each set is read once, by this tree, into a file both sides read.

Each side (REV's `synapse_tui`, extracted with `git archive`, and this tree's) runs in its own
process: `ReplacedFinder.build(facts).suggestions()`, then 20 new facts added one by one
(`add`: what each returns, then every suggestion again), then one older fact given a
successor (`update`) and every suggestion again. Everything is compared as text (kind, fact,
other, the score's `repr`, why); the first difference of each set is printed and the exit
status is 1 if any. The finders' CPU time per set is printed beside (a busy machine inflates
wall time far more).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


# -- reading the sets (this tree) ---------------------------------------------------------


def corpus_sets(corpus: Path) -> dict[str, list[dict]]:
    sys.path.insert(0, str(ROOT))
    from bench_suggest_real import left_at

    from synapse_tui.core.base.clock import parse_time

    out: dict[str, list[dict]] = {}
    for repo in json.loads((corpus / "manifest.json").read_text(encoding="utf-8")):
        folder = corpus / repo["name"]
        facts = [json.loads(line) for line in (folder / "flat.jsonl").open(encoding="utf-8")]
        truth = [json.loads(line) for line in (folder / "truth.jsonl").open(encoding="utf-8")]
        left = {k: parse_time(v) for k, v in left_at(truth).items()}
        for mode in ("flat", "deletions"):
            out[f"{repo['name']} ({mode})"] = [
                {
                    "id": f["id"],
                    "text": f["text"],
                    "created": parse_time(f["created_at"]),
                    "note": f.get("note"),
                    "entities": list(f.get("entities") or ()),
                    "gone": left.get(f["id"]) if mode == "deletions" else None,
                }
                for f in facts
            ]
    return out


def store_facts(db: str) -> list[dict]:
    sys.path.insert(0, str(ROOT))
    from synapse_tui.core.review.suggest_state import items
    from synapse_tui.core.store.db import Store

    with Store.open(db, readonly=True) as store:
        return [dataclasses.asdict(item) for item in items(store)]


def synthetic_sets(n: int, tmp: Path) -> dict[str, list[dict]]:
    sys.path.insert(0, str(ROOT))
    from bench_suggest import deleted
    from synth import world_texts, write_synthetic_jsonl

    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.review.suggest_state import items
    from synapse_tui.core.store.db import Store

    src = write_synthetic_jsonl(tmp / "synthetic.jsonl", n, texts=world_texts(n))
    db = tmp / "synthetic.db"
    with Store.open(str(db), create=True) as store:
        import_facts(store, parse_file(src), str(src))
    with Store.open(str(db), readonly=True) as store:
        facts = items(store)
    return {
        f"synthetic {n:,}": [dataclasses.asdict(f) for f in facts],
        f"synthetic {n:,}, a third deleted": [dataclasses.asdict(f) for f in deleted(facts)],
    }


# -- one side's answers (the tree on PYTHONPATH) ------------------------------------------


def emit(sets: Path, out: Path) -> None:
    from synapse_tui.core.review.suggest import Item, ReplacedFinder

    def rows(found) -> list[list[str]]:
        return [[s.kind, s.fact, s.other, repr(s.score), s.why] for s in found]

    answers: dict[str, dict] = {}
    cpu: dict[str, float] = {}
    for path in sorted(sets.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        name, facts = raw["name"], [Item(**{**d, "entities": tuple(d["entities"])}) for d in raw["facts"]]
        t0 = time.process_time()
        finder = ReplacedFinder.build(facts)
        found = finder.suggestions()
        cpu[name] = time.process_time() - t0
        answer: dict[str, list] = {"build": rows(found)}
        # the incremental paths: new facts, each an older fact's next version, then a change
        # of standing (a successor named)
        last = max((f.created for f in facts), default=0.0)
        step = max(1, len(facts) // 20)
        added = []
        for k, base in enumerate(facts[::step][:20]):
            probe = Item(f"probe-{k}", base.text + " now", last + 1 + k, base.note, base.entities)
            added.append(rows(finder.add(probe)))
        answer["added"] = added
        answer["after adding"] = rows(finder.suggestions())
        if found:
            top = facts[finder.by_id[found[0].fact]]
            finder.update(dataclasses.replace(top, successor=True))
            answer["after an update"] = rows(finder.suggestions())
        answers[name] = answer
    out.write_text(json.dumps({"answers": answers, "cpu": cpu}), encoding="utf-8")


def side(tree: Path, sets: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
    subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--emit", str(sets), str(out)], check=True, env=env
    )
    return json.loads(out.read_text(encoding="utf-8"))


def first_difference(a: dict, b: dict) -> str | None:
    for part in sorted(a.keys() | b.keys()):
        x, y = a.get(part), b.get(part)
        if x == y:
            continue
        if not isinstance(x, list) or not isinstance(y, list):
            return f"{part}: present on one side only"
        for k, (u, v) in enumerate(zip(x, y, strict=False)):
            if u != v:
                return f"{part}, row {k}: {u!r} / {v!r}"
        return f"{part}: {len(x)} rows / {len(y)} rows"
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="main", help="the revision compared with (default: main)")
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("SYNAPSE_CORPUS", "/work/corpus")))
    ap.add_argument("--n", type=int, default=100_000, help="synthetic facts (0: none)")
    ap.add_argument("--db", action="append", default=[], help="a store to read the facts of")
    ap.add_argument("--verbose", action="store_true", help="a line for every set")
    ap.add_argument("--emit", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.emit:
        emit(*args.emit)
        return
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        sets_dir = tmp / "sets"
        sets_dir.mkdir()
        sets = corpus_sets(args.corpus) if (args.corpus / "manifest.json").is_file() else {}
        if args.n:
            sets |= synthetic_sets(args.n, tmp)
        for db in args.db:
            sets[f"store {db}"] = store_facts(db)
        for k, (name, facts) in enumerate(sorted(sets.items())):
            (sets_dir / f"{k:04}.json").write_text(
                json.dumps({"name": name, "facts": facts}), encoding="utf-8"
            )
        base = tmp / "base"
        base.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.base, "synapse_tui"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        before = side(base, sets_dir, tmp / "before.json")
        after = side(ROOT, sets_dir, tmp / "after.json")
    differ = 0
    total = {"before": 0.0, "after": 0.0}
    for name in sorted(before["answers"]):
        diff = first_difference(before["answers"][name], after["answers"].get(name, {}))
        t0, t1 = before["cpu"][name], after["cpu"][name]
        total["before"] += t0
        total["after"] += t1
        n = len(before["answers"][name]["build"])
        if diff is not None:
            differ += 1
            print(f"DIFFERS  {name}: {diff}")
        elif t0 >= 1.0 or args.verbose:
            print(f"same     {name}: {n:,} suggestions; build {t0:.2f} s -> {t1:.2f} s CPU")
    n_sets = len(before["answers"])
    print(
        f"{n_sets - differ} of {n_sets} sets the same as {args.base}; the finders' CPU time over all:"
        f" {total['before']:.2f} s -> {total['after']:.2f} s ({total['after'] / max(total['before'], 1e-9):.2f}x)"
    )
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
