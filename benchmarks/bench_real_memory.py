"""How the importers read real memory files (issue 38): the corpus build_real_corpus.py made.

    python benchmarks/bench_real_memory.py [--corpus DIR] [--only NAME ...] [--from git-notes,claude-code]
                                           [--json FILE] [--misses] [--wide] [--syncs N]

For each repository of $SYNAPSE_CORPUS/manifest.json (default /work/corpus) and each
importer, the replay work tree is read with the importer's own `read` (what `import --from`
and `sync` call), and the figures printed are:

  error    the one-line message when the importer refused the folder ("-" when none)
  facts    facts it gave (every version of every record)
  junk     facts that are not memory, by build_real_corpus.junk_kind: HTML comments, table
           rows, lone prompt tags, marker-only lines; and "rewrap": a version whose text
           differs from the one it supersedes only in white space
  links    supersedes links it gave; P and R their precision and recall against the edits
           of truth.jsonl: a link is right when its two texts (white space made one space)
           are the old and new text of an edit of the same file
  vers     the share of truth's versions found among its facts (same file, same text)

Totals are given for each split separately (dev, held out, then any other: sums, then P
and R of the sums). `--from claude-code` reads the replay as a project (`--project`), and is measured
against the truth of the files Claude Code loads there (claude_code.loads: CLAUDE.md and
CLAUDE.local.md at any depth, .claude/CLAUDE.md, .claude/rules/) and the files it read
besides (its `@path` imports, a link's target); `--wide` adds every file under .claude/
(.claude/docs, a committed .claude/memory: files Claude Code does not load). A repository
that never held such a file is not counted for it. `--misses` lists the true edits left
unlinked, by file, saying whether the importer read the file at all.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_real_corpus import junk_kind, norm  # noqa: E402

from synapse_tui.core.base.errors import SynapseError  # noqa: E402
from synapse_tui.core.ingest.adapters import claude_code, reader  # noqa: E402

IMPORTERS = ("git-notes", "claude-code")
# What each importer is meant to read of a repository (its truth is limited to these files):
# git-notes every memory file; claude-code the files Claude Code loads in a project
# (claude_code.loads: CLAUDE.md and CLAUDE.local.md at any depth, .claude/CLAUDE.md,
# .claude/rules/), and with --wide every file under .claude/ too (the scope before the
# recall work of issue 38: .claude/docs, .claude/memory and the like, which Claude Code
# does not load unless a CLAUDE.md imports them).
SCOPE = {"git-notes": lambda path: True, "claude-code": claude_code.loads}
WIDE = {
    "git-notes": lambda path: True,
    "claude-code": lambda path: claude_code.loads(path) or path.startswith(".claude/"),
}
_FILE_KEY = {"git-notes": "x-git-notes-file", "claude-code": "x-claude-code-file"}


def _read(system: str, replay: Path):
    mod = reader(system)
    if system == "claude-code":
        return mod.read(None, project=replay)
    return mod.read(replay)


def measure(system: str, entry: dict, root: Path, scope=SCOPE) -> dict | None:
    """The row of one repository read by one importer; None when the importer reads none of
    its files (a repository that never had a file Claude Code loads, for claude-code)."""
    replay = root / entry["name"] / "replay"
    if not any(scope[system](p) for p in entry["memory_files"]):
        return None
    row = {"name": entry["name"], "split": entry["split"], "from": system, "error": None, "facts": 0,
           "junk": Counter(), "links": 0, "right": 0, "edits": 0, "found": 0,
           "versions": 0, "seen": 0, "seconds": 0.0, "missed": []}  # fmt: skip
    started = time.perf_counter()
    try:
        snap = _read(system, replay)
    except SynapseError as exc:
        row["error"] = str(exc).splitlines()[0][:160]
        row["seconds"] = time.perf_counter() - started
        return row
    row["seconds"] = time.perf_counter() - started
    by_id = {f.id: f for f in snap.facts}
    key = _FILE_KEY[system]
    read_files = {(f.provenance or {}).get(key, f.note) for f in snap.facts}
    truth = [json.loads(line) for line in (root / entry["name"] / "truth.jsonl").open(encoding="utf-8")]
    versions = {
        t["id"]: t
        for t in truth
        if t["kind"] == "version" and (scope[system](t["file"]) or t["file"] in read_files)
    }
    edits = {
        (versions[t["old"]]["file"], norm(versions[t["old"]]["text"]), norm(versions[t["new"]]["text"]))
        for t in truth
        if t["kind"] == "edit" and t["old"] in versions and t["new"] in versions
    }
    wanted = {(v["file"], norm(v["text"])) for v in versions.values()}
    row.update(edits=len(edits), versions=len(wanted))
    links, seen = set(), set()
    for f in snap.facts:
        file = (f.provenance or {}).get(key, f.note)
        kind = junk_kind(f.text)
        old = by_id.get(f.supersedes) if f.supersedes else None
        if kind is None and old is not None and norm(old.text) == norm(f.text):
            kind = "rewrap"
        if kind:
            row["junk"][kind] += 1
        seen.add((file, norm(f.text)))
        if old is not None:
            links.add((file, norm(old.text), norm(f.text)))
            row["links"] += 1
    row["facts"] = len(snap.facts)
    row["right"] = len(links & edits)
    row["found"] = len(edits & links)
    row["seen"] = len(wanted & seen)
    row["missed"] = [(*e, e[0] in read_files) for e in sorted(edits - links)]
    return row


def show_misses(rows: list[dict]) -> None:
    """The true edits each importer left unlinked, by repository and file: whether the
    importer read that file at all, then each pair (old => new, shortened)."""
    for r in rows:
        if not r["missed"]:
            continue
        print(
            f"== {r['name']} ({r['split']}, {r['from']}): {len(r['missed'])} of {r['edits']} edits not linked"
        )
        by_file = Counter((file, read) for file, _, _, read in r["missed"])
        for (file, read), n in sorted(by_file.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"   {n:4}  {file}{'' if read else '  (file not read)'}")
        for file, old, new, read in r["missed"]:
            if read:
                print(f"        {file}: {old[:70]!r} => {new[:70]!r}")


def synced(system: str, entry: dict, root: Path, work: Path, every_n: int) -> dict:
    """The replay synced into a real store at each `every_n`-th commit (and the last), as a
    user who syncs now and then would: the store's versions, read back, against the truth.
    `relinks`: a version whose text is its record's previous text (an edit paired again)."""
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.ingest.adapters import known_facts
    from synapse_tui.core.ingest.adapters.sync import sync_snapshot
    from synapse_tui.core.store.db import Store

    replay = root / entry["name"] / "replay"
    clone = work / system / entry["name"]  # one clone and store per importer: both may run
    subprocess.run(["git", "clone", "-q", str(replay), str(clone)], check=True, capture_output=True)
    shas = subprocess.run(
        ["git", "-C", str(clone), "rev-list", "--reverse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.split()
    picks = shas[every_n - 1 :: every_n]
    if shas and shas[-1] not in picks:
        picks.append(shas[-1])
    with Store.open(work / system / f"{entry['name']}.db", create=True) as store:
        for sha in picks:
            subprocess.run(
                ["git", "-C", str(clone), "checkout", "-q", "--detach", sha], check=True, capture_output=True
            )
            known = known_facts(store, system)
            try:
                snap = (
                    reader(system).read(None, project=clone, known=known)
                    if system == "claude-code"
                    else reader(system).read(clone)
                )
            except SynapseError:
                continue  # nothing to read yet at this commit (no CLAUDE.md)
            sync_snapshot(store, snap, Config())
        facts = known_facts(store, system)
    key = _FILE_KEY[system]
    by = {(k.record, k.version): k for k in facts}
    links, relinks = set(), 0
    for (rec, ver), k in by.items():
        prev = by.get((rec, ver - 1))
        if prev is not None:
            if norm(prev.text) == norm(k.text):
                relinks += 1
            links.add((k.provenance.get(key, k.note), norm(prev.text), norm(k.text)))
    truth = [json.loads(line) for line in (root / entry["name"] / "truth.jsonl").open(encoding="utf-8")]
    files = {k.provenance.get(key, k.note) for k in facts}
    versions = {
        t["id"]: t
        for t in truth
        if t["kind"] == "version" and (SCOPE[system](t["file"]) or t["file"] in files)
    }
    edits = {
        (versions[t["old"]]["file"], norm(versions[t["old"]]["text"]), norm(versions[t["new"]]["text"]))
        for t in truth
        if t["kind"] == "edit" and t["old"] in versions and t["new"] in versions
    }
    return {"name": entry["name"], "syncs": len(picks), "facts": len(facts), "links": len(links),
            "right": len(links & edits), "edits": len(edits), "relinks": relinks}  # fmt: skip


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "-"


def show(rows: list[dict]) -> None:
    head = f"{'repository':38} {'split':7} {'from':11} {'facts':>6} {'junk':>5} {'links':>6} {'P':>6} {'R':>6} {'vers':>6}  error / junk kinds"
    print(head)
    print("-" * len(head))
    for r in rows:
        junk = sum(r["junk"].values())
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(r["junk"].items()))
        print(f"{r['name'][:38]:38} {r['split']:7} {r['from']:11} {r['facts']:6} {junk:5} {r['links']:6} "
              f"{_ratio(r['right'], r['links']):>6} {_ratio(r['found'], r['edits']):>6} "
              f"{_ratio(r['seen'], r['versions']):>6}  {r['error'] or kinds}")  # fmt: skip
    print()
    for system in IMPORTERS:
        for split in dict.fromkeys(["dev", "heldout", *sorted({r["split"] for r in rows})]):
            part = [r for r in rows if r["from"] == system and r["split"] == split]
            if not part:
                continue
            s = lambda k, part=part: sum(r[k] for r in part)  # noqa: E731
            junk = sum(sum(r["junk"].values()) for r in part)
            errors = sum(1 for r in part if r["error"])
            print(f"{system:11} {split:7} repos {len(part):2}  refused {errors}  facts {s('facts'):6}  junk {junk:5}  "
                  f"links {s('links'):5}  P {_ratio(s('right'), s('links'))}  R {_ratio(s('found'), s('edits'))}  "
                  f"versions {_ratio(s('seen'), s('versions'))}  ({s('edits')} true edits)  "
                  f"{sum(r['seconds'] for r in part):.1f} s")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=os.environ.get("SYNAPSE_CORPUS", "/work/corpus"))
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--from", dest="systems", default=",".join(IMPORTERS))
    ap.add_argument("--json", default=None, help="write the rows here too")
    ap.add_argument("--misses", action="store_true", help="also list the true edits left unlinked, by file")
    ap.add_argument(
        "--wide", action="store_true",
        help="measure claude-code against every file under .claude/ too, not only those Claude Code loads",
    )  # fmt: skip
    ap.add_argument(
        "--syncs", type=int, default=0, metavar="N",
        help="instead: sync each replay into a real store at every N-th commit, report the store's links",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if args.syncs:
        manifest = json.loads((Path(args.corpus) / "manifest.json").read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory() as tmp:
            for system in args.systems.split(","):
                for entry in manifest:
                    if args.only and entry["name"] not in args.only and entry["repo"] not in args.only:
                        continue
                    if not any(SCOPE[system](p) for p in entry["memory_files"]):
                        continue
                    r = synced(system, entry, Path(args.corpus), Path(tmp), args.syncs)
                    print(f"{system:11} {r['name'][:38]:38} syncs {r['syncs']:3} facts {r['facts']:5} "
                          f"links {r['links']:4} P {_ratio(r['right'], r['links'])} "
                          f"R {_ratio(r['right'], r['edits'])} re-linked {r['relinks']}")  # fmt: skip
        return 0
    root = Path(args.corpus)
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    rows = []
    for system in args.systems.split(","):
        for entry in manifest:
            if args.only and entry["name"] not in args.only and entry["repo"] not in args.only:
                continue
            row = measure(system, entry, root, WIDE if args.wide else SCOPE)
            if row is not None:
                rows.append(row)
    show(rows)
    if args.misses:
        print()
        show_misses(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=dict) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
