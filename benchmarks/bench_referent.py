"""Broken referents against what git says, on real repositories (issue 40), and the cost.

Accuracy. For each repository of the real-memory corpus (benchmarks/build_real_corpus.py;
manifest.json names each fetched snapshot, whose history is the code's too), every
version of every memory block (flat.jsonl) is memory as of a past commit; the code is the
repository's head. The checker (core/review/referent.py) finds the fact's commit from its
`created_at` alone and reports broken referents. The truth is computed differently, from
git's full listings: a referent is a run of path characters in the text (a different
tokenizer: no stripping rules, just `[A-Za-z0-9_.@+/-]` runs with `./`, `/` and trailing
dots cut, not touching a `*`) that is a path (a `/` or an extension) of the `ls-tree -r`
of the commit the corpus recorded for the version; it is broken when absent from the
`ls-tree -r` of head. A rename is followed by a linear walk of `diff-tree -M` over every
first-parent commit after the version's commit (not the checker's bisection). Reported:

- precision and recall of (fact, path) broken referents, per split (dev, heldout);
- reported paths that exist at head (must be 0), reported paths that never existed in
  any first-parent commit (must be 0), and reported paths absent from the tree of the
  version's own commit (the time lookup picked another commit);
- of the broken file referents whose removal git detects as a rename, the share whose new
  path the checker names (the path the truth's walk ends on).

Cost. A synthetic repository of 10,000 files at head (git fast-import, 13,000 at first,
300 commits moving and removing files), 1,000 facts naming two paths each, checked cold, then again (cached); the baseline
in the same run is one `ls-tree -r` of head (listing the repository once).

    python benchmarks/bench_referent.py [--corpus DIR] [--max-facts N] [--write-results]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Results  # noqa: E402

from synapse_tui.core.base.clock import parse_time  # noqa: E402
from synapse_tui.core.base.safegit import Repo  # noqa: E402
from synapse_tui.core.review import referent as ref  # noqa: E402

_RUN = re.compile(r"[A-Za-z0-9_.@+/-]+")
_EXT = re.compile(r"\.[A-Za-z0-9][A-Za-z0-9_+-]{0,9}$")


def truth_tokens(text: str) -> set[str]:
    out = {}
    for m in _RUN.finditer(text):
        a, b = m.start(), m.end()
        bold = text[a - 2 : a] == "**" and text[b : b + 2] == "**"
        if not bold and (text[a - 1 : a] in set("*{}<>$") - {""} or text[b : b + 1] in set("*{}<>$") - {""}):
            continue  # part of a glob or a placeholder
        t = m.group(0)
        while t.startswith("./"):
            t = t[2:]
        t = t.rstrip("./").lstrip("/") if not t.endswith("..") else t
        if t and ("/" in m.group(0).strip(".") or _EXT.search(t)):
            out[t] = None
    return set(out)


def tree(repo: Repo, rev: str, cache: dict[str, set[str]]) -> set[str]:
    """Every file and folder of `rev`'s tree."""
    if rev not in cache:
        paths = set()
        for e in repo.ls_tree(rev):
            paths.add(e.path)
            parts = e.path.split("/")
            for i in range(1, len(parts)):
                paths.add("/".join(parts[:i]))
        cache[rev] = paths
    return cache[rev]


def bare(git_dir: str) -> Repo:
    return Repo(Path(git_dir), Path(git_dir))


def measure_repo(entry: dict, corpus: Path, max_facts: int) -> dict:
    repo = bare(entry["git_dir"])
    head = entry["head"]
    line = list(reversed(repo.first_parents(head)))
    pos = {s: i for i, s in enumerate(line)}
    facts, commit_of = [], {}
    with open(corpus / entry["name"] / "flat.jsonl", encoding="utf-8") as fh:
        rows = [json.loads(x) for x in fh if x.strip()]
    step = max(1, len(rows) // max_facts) if max_facts else 1
    for r in rows[::step]:
        c = (r.get("provenance") or {}).get("x-corpus-commit")
        if c in pos:
            facts.append(ref.Fact(r["id"], r["text"], parse_time(r["created_at"])))
            commit_of[r["id"]] = c
    t0 = time.perf_counter()
    found = ref.check(repo, facts, head)
    took = time.perf_counter() - t0
    reported = {(b.fact, b.path): b for b in found}
    # the truth
    trees: dict[str, set[str]] = {}
    now = tree(repo, head, trees)
    truth = set()
    for f in facts:
        then = tree(repo, commit_of[f.id], trees)
        for t in truth_tokens(f.text):
            if t in then and t not in now:
                truth.add((f.id, t))
    # every path ever on the line, and each commit's renames/removals (linear walk)
    changes = repo.first_parent_changes(line, renames=True)
    ever = set()
    for cs in changes.values():
        for c in cs:
            for p in (c.path, c.source):
                if p:
                    parts = p.split("/")
                    ever.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))

    def walk(path: str, start: int) -> tuple[bool, str | None]:
        """(git detected a rename at the removal, the path the renames end on)."""
        renamed, cur = False, path
        for i in range(start + 1, len(line)):
            for c in changes.get(line[i], []):
                if c.status == "R" and c.source == cur:
                    renamed, cur = True, c.path
                    break
                if c.status == "D" and c.path == cur:
                    return renamed, cur if renamed else None
        return renamed, cur if renamed else None

    hit = sum(1 for k in reported if k in truth)
    renames = named = 0
    unnamed = []
    for fid, p in truth:
        if p not in tree(repo, commit_of[fid], trees) or p in now:
            continue
        if "." not in p.rsplit("/", 1)[-1] and p in {x for x in now}:
            continue
        blob_kind = any(e for e in [p] if p in then_files(repo, commit_of[fid], trees))
        if not blob_kind:
            continue
        was_renamed, end = walk(p, pos[commit_of[fid]])
        if was_renamed and end != p:  # moved away and back, then removed: not a rename
            renames += 1
            b = reported.get((fid, p))
            if b is not None and b.new_path == end and end in now:
                named += 1
            elif b is not None and end not in now and b.moved and b.moved[0][0]:
                named += 1  # the chain ends on a path gone too: naming the move counts
            else:
                unnamed.append((fid, p, end, b.why if b else None))
    return {
        "name": entry["name"],
        "split": entry["split"],
        "facts": len(facts),
        "reported": len(reported),
        "truth": len(truth),
        "hit": hit,
        "existing": sum(1 for _, p in reported if p in now),
        "never": sum(1 for _, p in reported if p not in ever),
        "not_then": sum(1 for fid, p in reported if p not in tree(repo, commit_of[fid], trees)),
        "renames": renames,
        "named": named,
        "seconds": took,
        "misses": sorted(truth - set(reported))[:5],
        "false": sorted(set(reported) - truth)[:5],
        "unnamed": unnamed[:5],
        "never_paths": sorted({p for _, p in reported if p not in ever})[:5],
    }


_FILES: dict[str, set[str]] = {}


def then_files(repo: Repo, rev: str, trees: dict[str, set[str]]) -> set[str]:
    if rev not in _FILES:
        _FILES[rev] = {e.path for e in repo.ls_tree(rev) if e.kind == "blob"}
    return _FILES[rev]


# -- cost -------------------------------------------------------------------------------


def synthetic(folder: Path, files: int = 13_000, commits: int = 300, seed: int = 7) -> tuple[Path, list]:
    """A repository of `files` files in 100 folders; each later commit renames 10 files
    and removes 10 (13,000 at first, about 10,000 at head). Returns the folder and (path, commit index, time) of every file."""
    rnd = random.Random(seed)
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    paths = [f"src/mod{i % 100:02d}/file_{i:05d}.py" for i in range(files)]
    t0 = 1_700_000_000
    out = []

    def blob(p: str) -> bytes:
        body = f"# {p}\n" + "".join(f"def f{j}():\n    return {j}\n" for j in range(8))
        return body.encode()

    stream = bytearray()
    live = list(paths)
    for c in range(commits):
        when = t0 + c * 86400
        stream += f"commit refs/heads/main\ncommitter B <b@x> {when} +0000\ndata 2\nc\n".encode()
        if c == 0:
            for p in paths:
                data = blob(p)
                stream += f"M 100644 inline {p}\ndata {len(data)}\n".encode() + data + b"\n"
        else:
            rnd.shuffle(live)
            moved, gone = live[:10], live[10:20]
            live = live[20:]
            for p in moved:
                new = p.replace("src/", "lib/", 1)
                stream += f'R "{p}" "{new}"\n'.encode()
                live.append(new)
            for p in gone:
                stream += f"D {p}\n".encode()
        stream += b"\n"
        out.append(when)
    subprocess.run(["git", "-C", str(folder), "fast-import", "--quiet"], input=bytes(stream), check=True)
    return folder, paths, out


def cost(results: Results) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SYNAPSE_DATA_DIR"] = str(Path(tmp) / "data")  # the checker's cache: fresh
        folder, paths, times = synthetic(Path(tmp) / "big")
        rnd = random.Random(11)
        facts = []
        for i in range(1000):
            a, b = rnd.sample(paths, 2)
            when = times[rnd.randrange(len(times))] + 3600
            facts.append(ref.Fact(f"f{i}", f"`{a}:12` holds the parser; see also {b}.", when))
        repo = Repo.find(folder)
        base = []
        for _ in range(3):
            t0 = time.perf_counter()
            listed = len(repo.ls_tree("HEAD"))
            base.append(time.perf_counter() - t0)
        ref._CACHE.clear()
        fresh = Repo.find(folder)
        t0 = time.perf_counter()
        found = ref.cached_check(fresh, facts)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        ref.cached_check(fresh, facts)
        warm = time.perf_counter() - t0
        ref._CACHE.clear()  # as a new process would start: the cache file only
        t0 = time.perf_counter()
        ref.cached_check(Repo.find(folder), facts)
        disk = time.perf_counter() - t0
        b = min(base)
        moved = sum(1 for x in found if x.new_path)
        print(
            f"cost: {listed} files at head, {len(found)} broken ({moved} moved); cold {cold:.2f}s,"
            f" cached {warm * 1000:.1f} ms, from the file {disk * 1000:.0f} ms, ls-tree -r {b * 1000:.0f} ms"
        )
        results.add(
            f"1,000 facts vs a {listed:,}-file repository, 300 commits ({len(found)} broken, {moved} renamed)",
            cold,
            baseline="one ls-tree -r of head",
            against=b,
        )
        results.add(
            "the same, again (cached per fact and revision)",
            warm,
            baseline="one ls-tree -r of head",
            against=b,
        )
        results.add(
            "the same, in a new process (the cache file only)",
            disk,
            baseline="one ls-tree -r of head",
            against=b,
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=os.environ.get("SYNAPSE_CORPUS", "/work/corpus"))
    ap.add_argument("--max-facts", type=int, default=3000, help="per repository, spread evenly (0: all)")
    ap.add_argument("--only", default=None, help="one repository name")
    ap.add_argument("--no-cost", action="store_true")
    ap.add_argument("--write-results", action="store_true")
    args = ap.parse_args()
    corpus = Path(args.corpus)
    manifest = json.loads((corpus / "manifest.json").read_text())
    results = Results("bench_referent.py")
    pooled: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for entry in manifest:
        if args.only and entry["name"] != args.only:
            continue
        r = measure_repo(entry, corpus, args.max_facts)
        print(json.dumps({k: v for k, v in r.items()}, default=str))
        for k in (
            "facts",
            "reported",
            "truth",
            "hit",
            "existing",
            "never",
            "not_then",
            "renames",
            "named",
            "seconds",
        ):
            pooled[r["split"]][k] += r[k]
        pooled[r["split"]]["repos"] += 1
    for split in ("dev", "heldout"):
        p = pooled.get(split)
        if not p:
            continue
        prec = p["hit"] / p["reported"] if p["reported"] else 1.0
        rec = p["hit"] / p["truth"] if p["truth"] else 1.0
        share = p["named"] / p["renames"] if p["renames"] else 1.0
        print(
            f"{split}: {int(p['repos'])} repos, {int(p['facts'])} facts, truth {int(p['truth'])}, reported"
            f" {int(p['reported'])}, precision {prec:.3f}, recall {rec:.3f}, existing {int(p['existing'])},"
            f" never {int(p['never'])}, not-then {int(p['not_then'])}, renames {int(p['renames'])} named"
            f" {int(p['named'])} ({share:.2f}), {p['seconds']:.1f}s"
        )
        tag = f"{split} ({int(p['repos'])} repositories, {int(p['facts']):,} facts)"
        results.add(f"{tag}: precision ({int(p['hit'])}/{int(p['reported'])})", prec, unit="")
        results.add(f"{tag}: recall ({int(p['hit'])}/{int(p['truth'])})", rec, unit="")
        results.add(f"{tag}: reported paths that exist at head", p["existing"], unit="")
        results.add(f"{tag}: reported paths that never existed", p["never"], unit="")
        results.add(
            f"{tag}: renames whose new path is named ({int(p['named'])}/{int(p['renames'])})", share, unit=""
        )
    if not args.no_cost:
        cost(results)
    if args.write_results:
        results.save()


if __name__ == "__main__":
    main()
