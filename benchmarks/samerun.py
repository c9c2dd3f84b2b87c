"""What the benchmarks that time real folders share (bench_sync_unchanged.py,
bench_sync_empty.py, bench_known_facts.py): a `fetch` snapshot's files extracted or cloned
(nothing of them is run), the code at a revision extracted beside this tree's, a child
process that runs one of the two codes and answers with one line of JSON, the CLI run in
that child, and what of two stores and two syncs' counts is compared.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

TREE = Path(__file__).resolve().parent.parent

# a git of our own: no user's or system's config, a fixed author (dates given per command)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.test",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.test",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    # no `gc --auto` after a commit of many files: detached, it packs and removes the loose
    # objects while the repository is copied (and works beside the timed syncs)
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "gc.auto",
    "GIT_CONFIG_VALUE_0": "0",
}
FIRST = "2026-03-01T10:00:00+00:00"  # when the files extracted are committed


def git(root: Path, *args: str, when: str) -> None:
    """`git -C root ARGS` with our own config, authored and committed `when`."""
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def extract(snapshot: Path, into: Path, *, commit: bool = False) -> None:
    """The files of a snapshot (a bare repository) at HEAD, but those whose blobs it lacks
    (a snapshot lacks its largest), written below `into` with `git archive | tar -x`; with
    `commit`, committed once (at FIRST) into a new repository of our own (no hooks, no
    config of its own: the files only)."""
    into.mkdir(parents=True)
    plumbing = ["git", f"--git-dir={snapshot}"]
    listed = subprocess.run(
        [*plumbing, "ls-tree", "-r", "-z", "HEAD"], capture_output=True, check=True
    ).stdout
    entries = [
        (e.split(b"\t", 1)[0].split()[2], e.split(b"\t", 1)[1]) for e in listed.split(b"\0") if b"\t" in e
    ]
    check = subprocess.run(
        [*plumbing, "cat-file", "--batch-check"],
        input=b"".join(sha + b"\n" for sha, _ in entries), capture_output=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    paths = [
        path.decode("utf-8", "surrogateescape")
        for (_, path), line in zip(entries, check, strict=True)
        if not line.endswith(b"missing")
    ]
    archive = subprocess.run([*plumbing, "archive", "HEAD", "--", *paths], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    if commit:
        git(into, "init", "-q", when=FIRST)
        git(into, "add", "-A", when=FIRST)
        git(into, "commit", "-q", "--no-verify", "-m", "first", when=FIRST)


def clone(snapshot: Path, into: Path, *, check: bool = True) -> bool:
    """A `git clone` of the snapshot, its whole history (nothing of it run); whether it was
    made (a snapshot lacking a blob of HEAD cannot be checked out), or, with `check`, an
    error when not."""
    done = subprocess.run(
        ["git", "clone", "-q", "--no-hardlinks", str(snapshot), str(into)],
        check=check, capture_output=True, env={**os.environ, **GIT_ENV},
    )  # fmt: skip
    return done.returncode == 0


def before_tree(rev: str, into: Path) -> str:
    """The package as it was at `rev` (`git archive` of this repository), for PYTHONPATH."""
    archive = subprocess.run(
        ["git", "-C", str(TREE), "archive", rev, "synapse_tui"], capture_output=True, check=True
    )
    into.mkdir()
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return str(into)


def run_child(script: str, tree: str, *args: str) -> dict:
    """`python SCRIPT ARGS` with PYTHONPATH at `tree` (one of the two codes), in the temporary
    folder; the last line it prints, as JSON. A child that fails ends the benchmark, naming
    the code and showing the end of what it said."""
    out = subprocess.run(
        [sys.executable, script, *args], capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": tree}, cwd=tempfile.gettempdir(),
    )  # fmt: skip
    if out.returncode != 0:
        raise SystemExit(f"child under {tree} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def cpu() -> float:
    """CPU seconds of this process and its children (git) so far: the machine is shared, and
    wall time wanders with its load."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def cli(*args: str) -> str:
    """In a child: `synapse-tui ARGS` run in this process (the code PYTHONPATH names), what
    it printed; an exit with a failing status raises."""
    from synapse_tui.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        try:
            main.main([*args], standalone_mode=False)
        except SystemExit as exc:
            if exc.code:
                raise
    return buf.getvalue()


def cli_json(*args: str) -> dict:
    """`cli(ARGS)`'s last line, as JSON (a command given `--json`)."""
    return json.loads(cli(*args).splitlines()[-1])


def fact_rows(db: Path) -> list[tuple]:
    """What two codes' stores must agree on: each fact's id, text, deleted flag and link."""
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT id, text, deleted, supersedes FROM facts ORDER BY id").fetchall()


def counted(result: dict, not_compared: tuple[str, ...]) -> dict:
    """A sync's JSON counts without the keys that may differ between two runs of it."""
    return {k: v for k, v in result.items() if k not in not_compared}
