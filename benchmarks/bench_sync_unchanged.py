"""A second sync of a real folder unchanged since the last sync, after a commit changed one
file: the code before the provenance refresh (a file stayed "not as synced" after any
commit, so it was replayed at every sync) against this tree's, in the same run.

    python benchmarks/bench_sync_unchanged.py [--mirrors DIR] [--before REV] [--repeat N]
        [--only NAME ...] [--write-results] [--git-only | --no-git] [--history]

For each real folder (a `fetch` snapshot under DIR, default /work/.mirror, extracted with
`git archive HEAD | tar -x`: nothing of it is run), the files are committed once into a
new repository of our own, read by the reader named (`import --from SYSTEM`), then one
file gains a bullet in a second commit, and the store is synced (the sync after the
commit), then synced again with nothing changed (`--repeat` times, the best taken): that
second sync is the figure, its wall time and its CPU time (the child's and git's: the
machine is shared, and wall time wanders with its load). Each code runs in a child process of its own (PYTHONPATH at
this tree, or at REV extracted with `git archive`, default 2821c10, the code before the
refresh), on its own copy of the repository, and says what the syncs counted and what the
store holds (every fact's id, text, deleted flag and link): the two must agree, or the
script says so and exits 1. The last FOLDERS are large trees holding few notes (`--from
markdown` there is git-notes' reader), where the walk that finds the notes
(markdown_memory.memory_files) is longest: `--before 8220d05`, main before that walk worked
out each folder's place once for all its entries. `--history`: each snapshot is cloned with its real history
instead (as below), so a sync's reading of git's history is timed too, and the child
counts the whole-history walks per sync.

Markdown in git (`--from markdown` in a work tree, x-source `git-notes`), GIT_FOLDERS: each
snapshot is cloned whole (its real history; `git clone` of the bare snapshot, nothing of it
run), imported, synced unchanged (best of `--repeat`), then one commit appends a bullet to
one note and the store is synced again. Before (REV) and after (this tree) each on its own
clone, in the same run. The check there is this tree's own: the store after the sync that
followed the commit is compared, row for row (ids, texts, times, tiers, links, provenance
with its lines, deleted flags and deletion times) and count for count, with a copy of the
store synced the same way but replaying every note whole (`git_notes.read(whole=True)`);
any difference exits 1.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from samerun import TREE, before_tree, cli, cli_json, clone, counted, cpu, extract, fact_rows, git, run_child

BEFORE = "2821c10"  # main before the refresh (its branch's base); `--before ab37e16` for git-notes

# (snapshot, reader, how it is pointed at the folder, the file a commit changes)
FOLDERS = [
    ("HL8-ORG+oksai.cc", "cursor", "source", ".cursor/rules"),
    ("7Spade+Twilight-Hub", "cursor", "source", ".cursor/rules"),
    ("7Spade+ng-alain-master", "cursor", "source", ".cursor/rules"),
    ("google-gemini+gemini-cli", "gemini-cli", "project", "GEMINI.md"),
    # large trees holding few notes: the walk that finds them is longest there
    ("astral-sh+ruff", "markdown", "source", "AGENTS.md"),
    ("TanStack+router", "markdown", "source", "AGENTS.md"),
]
# (snapshot, the note the commit appends a bullet to)
GIT_FOLDERS = [
    ("RooCodeInc+Roo-Code", "AGENTS.md"),
    ("alchemiststudiosDOTai+tinyAgent", "AGENTS.md"),
    ("eyaltoledano+claude-task-master", "CLAUDE.md"),
]


def changed_files(root: Path, where: str, every: bool) -> list[Path]:
    """The files the second commit changes: each of the reader's files (`where`: a folder,
    or a file name found anywhere in the repository), or (not `every`) the first."""
    path = root / where
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.suffix in (".md", ".mdc") and p.is_file())
    else:
        found = sorted(p for p in root.rglob(where) if ".git" not in p.relative_to(root).parts)
    return found if every else found[:1]


def child(tree: str, repo: Path, system: str, how: str, where: str, repeat: int, every: bool) -> dict:
    """Run the syncs under the code at `tree` (a child process), on `repo`."""
    return run_child(__file__, tree, "--child", str(repo), system, how, where, str(repeat), str(int(every)))


def in_child(repo: Path, system: str, how: str, where: str, repeat: int, every: bool) -> None:
    """In the child: import, commit a change, sync, then sync again unchanged, timed."""
    from synapse_tui.core.ingest.adapters import gitlog, mdhistory  # the tree PYTHONPATH names

    replayed = [0]  # files replayed from git, counted: the work the figure times
    walked = [0]  # whole-history reads (gitlog.Folder.history without `only`)
    replay_file, history = mdhistory._replay_file, gitlog.Folder.history

    def counting(*args, **kwargs):
        replayed[0] += 1
        return replay_file(*args, **kwargs)

    def walking(self, suffix="", only=None):
        walked[0] += only is None
        return history(self, suffix, only)

    mdhistory._replay_file = counting
    gitlog.Folder.history = walking

    db = repo.parent / "m.db"
    source = ("--project", str(repo)) if how == "project" else (str(repo),)
    cli("import", "--from", system, *source, "--db", str(db))
    for path in changed_files(repo, where, every):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        path.write_text(
            text + "\n- A bullet added by the benchmark's second commit.\n", errors="surrogateescape"
        )
    git(repo, "commit", "-q", "--no-verify", "-am", "second", when="2026-03-02T10:00:00+00:00")
    t = time.perf_counter()
    after_commit = cli_json("sync", str(db), "--json")
    first = time.perf_counter() - t
    times, cpus, counts = [], [], []
    replayed[0] = walked[0] = 0
    for _ in range(repeat):
        t, c = time.perf_counter(), cpu()
        counts.append(cli_json("sync", str(db), "--json"))
        times.append(time.perf_counter() - t)
        cpus.append(cpu() - c)
    rows = fact_rows(db)
    # a project's path is part of its records' ids (Gemini CLI): each code reads its own copy
    here = [str(repo.resolve()), str(repo.resolve()).replace("/", "-")]

    def same_place(value: object) -> object:
        for p in here:
            value = value.replace(p, "REPO") if isinstance(value, str) else value
        return value

    rows = sorted([same_place(v) for v in r] for r in rows)
    print(
        json.dumps(
            {
                "sync_after_commit": first,
                "second_sync": min(times),
                "second_sync_cpu": min(cpus),
                "replayed_per_sync": replayed[0] / repeat,
                "walks_per_sync": walked[0] / repeat,
                "counts_after_commit": after_commit,
                "counts_unchanged": counts,
                "facts": len(rows),
                "store": rows,
            }
        )
    )


def in_git_child(repo: Path, note: str, repeat: int) -> None:
    """In the child: import a clone with its history, sync it unchanged, commit a bullet to
    `note`, sync; under this tree, a copy of the store synced replaying every note whole."""
    db = repo.parent / "m.db"
    t = time.perf_counter()
    cli("import", "--from", "markdown", str(repo), "--db", str(db), "--json")
    imported = time.perf_counter() - t
    times, counts = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        counts.append(cli_json("sync", str(db), "--json", "--yes"))
        times.append(time.perf_counter() - t)
    path = repo / note
    path.write_text(path.read_text(encoding="utf-8") + "\n- A bullet added by the benchmark's commit.\n")
    git(repo, "commit", "-q", "--no-verify", "-am", "bench", when="2026-12-07T05:00:00+00:00")
    whole_db = repo.parent / "whole.db"
    shutil.copy(db, whole_db)
    t = time.perf_counter()
    after_commit = cli_json("sync", str(db), "--json", "--yes")
    first = time.perf_counter() - t
    same = None
    try:
        from synapse_tui.core.base.config import Config
        from synapse_tui.core.ingest.adapters import git_notes, known_facts
        from synapse_tui.core.ingest.adapters.sync import sync_snapshot
        from synapse_tui.core.store.db import Store

        with Store.open(whole_db) as store:
            snap = git_notes.read(repo, known=known_facts(store, "git-notes"), whole=True)
            whole = sync_snapshot(store, snap, Config()).to_json()
        same = _full_rows(db) == _full_rows(whole_db) and counted(whole, NOT_COMPARED) == counted(
            after_commit, NOT_COMPARED
        )
    except TypeError:  # code without `whole`: the code before
        pass
    rows = fact_rows(db)
    print(
        json.dumps(
            {
                "import": imported,
                "second_sync": min(times),
                "sync_after_commit": first,
                "counts_unchanged": counts,
                "counts_after_commit": after_commit,
                "same_as_whole": same,
                "facts": len(rows),
                "store": [list(r) for r in rows],
            }
        )
    )


def _full_rows(db: Path) -> tuple[list, list]:
    with sqlite3.connect(db) as conn:
        facts = conn.execute(
            "SELECT id, text, created_at, tier, supersedes, note, entities, provenance, deleted"
            " FROM facts ORDER BY id"
        ).fetchall()
        deleted = conn.execute(
            "SELECT key, value FROM meta WHERE key LIKE 'deleted.%' ORDER BY key"
        ).fetchall()
    return facts, deleted


def git_child(tree: str, repo: Path, note: str, repeat: int) -> dict:
    return run_child(__file__, tree, "--git-child", str(repo), note, str(repeat))


def bench_git(args: argparse.Namespace, base: str, tmp: Path, results) -> bool:
    """The Markdown-in-git folders; whether any store differed from a whole replay's."""
    differ = False
    print(
        f"{'folder (git history)':34} {'facts':>6} {'import':>8} {'unchanged before':>16} {'after':>8} {'ratio':>7}"
        f" {'commit before':>13} {'after':>8} {'= whole':>7}"
    )
    for name, note in GIT_FOLDERS:
        if args.only and name not in args.only:
            continue
        snapshot = Path(args.mirrors) / name / "repo"
        if not snapshot.exists():
            print(f"{name:34} (no snapshot)")
            continue
        got = {}
        for label, tree in (("before", base), ("after", str(TREE))):
            copy = tmp / f"git-{name}" / label / "repo"
            copy.parent.mkdir(parents=True)
            clone(snapshot, copy)
            got[label] = git_child(tree, copy, note, args.repeat)
        b, a = got["before"], got["after"]
        differ |= a["same_as_whole"] is not True
        agree = b["store"] == a["store"]
        ratio = a["second_sync"] / b["second_sync"]
        print(
            f"{name:34} {a['facts']:>6} {a['import']:>7.1f}s {b['second_sync']:>15.2f}s {a['second_sync']:>7.2f}s"
            f" {ratio:>6.3f}x {b['sync_after_commit']:>12.2f}s {a['sync_after_commit']:>7.2f}s"
            f" {str(a['same_as_whole']):>7}" + ("" if agree else "  (store differs from the code before's)")
        )
        results.add(
            f"{name} (git-notes, {a['facts']} facts, its history): sync, unchanged",
            a["second_sync"], baseline=f"code at {args.before}", against=b["second_sync"],
        )  # fmt: skip
        results.add(
            f"{name}: the sync after one commit to {note}",
            a["sync_after_commit"], baseline=f"code at {args.before}", against=b["sync_after_commit"],
        )  # fmt: skip
        results.add(
            f"{name}: that store equals a whole replay's (rows, provenance, deletion times, counts)",
            1.0 if a["same_as_whole"] else 0.0, baseline="the same syncs replaying every note", against=1.0, unit="",
        )  # fmt: skip
    return differ


# what a sync's JSON says of where it read (each code has its own copy) and of what it passed
# over while reading (`left out` names only what was read this time, as outside git)
NOT_COMPARED = ("source", "db", "left_out", "warnings")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--git-child":
        repo, note, repeat = sys.argv[2:5]
        in_git_child(Path(repo), note, int(repeat))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        repo, system, how, where, repeat, every = sys.argv[2:8]
        in_child(Path(repo), system, how, where, int(repeat), every == "1")
        return
    from results import Results

    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--before", default=BEFORE)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--one", action="store_true", help="the second commit changes one file, not each")
    ap.add_argument("--write-results", action="store_true")
    ap.add_argument("--git-only", action="store_true", help="only the Markdown-in-git folders")
    ap.add_argument("--history", action="store_true", help="the reader's folders cloned with their history")
    ap.add_argument("--no-git", action="store_true", help="not the Markdown-in-git folders")
    args = ap.parse_args()
    results = Results("bench_sync_unchanged.py")
    in_git = Results("bench_sync_unchanged.py, Markdown in git")  # a block of its own
    differ = False
    print(
        f"{'folder':32} {'reader':10} {'facts':>6} {'replayed':>8} {'before':>8} {'after':>8} {'ratio':>6}"
        f" {'1st before':>10} {'1st after':>9} {'CPU before':>10} {'after':>8} {'ratio':>6}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        base = before_tree(args.before, Path(tmp) / "before")
        if not args.no_git:
            differ |= bench_git(args, base, Path(tmp), in_git)
        for name, system, how, where in FOLDERS:
            if args.git_only or args.only and name not in args.only:
                continue
            snapshot = Path(args.mirrors) / name / "repo"
            if not snapshot.exists():
                print(f"{name:32} (no snapshot)")
                continue
            prepared = Path(tmp) / name / "prepared" / "repo"
            if not args.history:
                extract(snapshot, prepared, commit=True)
            got = {}
            for label, tree in (("before", base), ("after", str(TREE))):
                copy = Path(tmp) / name / label / "repo"
                if args.history:  # its real history: a clone of the snapshot, nothing of it run
                    copy.parent.mkdir(parents=True)
                    if not clone(snapshot, copy, check=False):  # a snapshot missing a blob of HEAD
                        break
                else:
                    shutil.copytree(prepared, copy, symlinks=True)
                got[label] = child(tree, copy, system, how, where, args.repeat, not args.one)
            if len(got) < 2:
                print(f"{name:32} (the snapshot lacks a blob of HEAD: no clone)")
                continue
            b, a = got["before"], got["after"]
            same = b["store"] == a["store"] and all(
                counted(x, NOT_COMPARED) == counted(y, NOT_COMPARED)
                for x, y in zip(
                    [b["counts_after_commit"], *b["counts_unchanged"]],
                    [a["counts_after_commit"], *a["counts_unchanged"]],
                    strict=True,
                )
            )
            differ |= not same
            told = b["counts_unchanged"][0]["left_out"], a["counts_unchanged"][0]["left_out"]
            if told[0] != told[1]:
                print(f"  left out, second sync: before {told[0]}, after {told[1]} (read this time)")
            if not same:
                for key in ("counts_after_commit", "counts_unchanged"):
                    print(f"  {key}: before {b[key]}\n  {key}: after  {a[key]}")
                gone = {tuple(r) for r in b["store"]} ^ {tuple(r) for r in a["store"]}
                print(f"  facts differing: {sorted(gone)[:6]}")
            ratio = a["second_sync"] / b["second_sync"]
            walks = (
                f"  history walked per sync: {b.get('walks_per_sync', '?')} -> {a.get('walks_per_sync', '?')}"
            )
            print(
                f"{name:32} {system:10} {a['facts']:>6} {b['replayed_per_sync']:>4.0f}->{a['replayed_per_sync']:<3.0f}"
                f" {b['second_sync']:>7.3f}s {a['second_sync']:>7.3f}s"
                f" {ratio:>5.2f}x {b['sync_after_commit']:>9.3f}s {a['sync_after_commit']:>8.3f}s"
                f" {b['second_sync_cpu']:>9.3f}s {a['second_sync_cpu']:>7.3f}s"
                f" {a['second_sync_cpu'] / b['second_sync_cpu']:>5.2f}x"
                + ("" if same else "  RESULTS DIFFER")
                + walks
            )
            kind = ", its history" if args.history else ""
            results.add(
                f"{name} ({system}, {a['facts']} facts{kind}): second sync, unchanged",
                a["second_sync"],
                baseline=f"code at {args.before}",
                against=b["second_sync"],
            )
            results.add(
                f"{name}: that sync's CPU time (with git's)",
                a["second_sync_cpu"],
                baseline=f"code at {args.before}",
                against=b["second_sync_cpu"],
            )
            results.add(
                f"{name}: files replayed from git by that sync",
                a["replayed_per_sync"],
                baseline=f"code at {args.before}",
                against=b["replayed_per_sync"],
                unit="",
            )
            results.add(
                f"{name}: the sync after the commit",
                a["sync_after_commit"],
                baseline=f"code at {args.before}",
                against=b["sync_after_commit"],
            )
    if args.write_results:
        if in_git.rows:
            in_git.save()
        if not args.git_only:
            results.save()
    if differ:
        raise SystemExit("the two codes' results differ")


if __name__ == "__main__":
    main()
