"""Figures for issue 38's new sources. Run: python benchmarks/bench_new_sources.py [N] [SOURCE ...] [--git]

For each source, a folder of N (default 10,000) files in that system's own shape, one or
two facts a file, is read and synced into a new store (graph included), then synced again
with nothing new (its time, the rows it wrote, whether the store file changed: 0 / no).
The baseline, in the same run: N Claude Code topic files (bench_sources.py's), read and
synced the same way; each figure is also given as a ratio to it.

- codex: MEMORY.md of N `# Task Group` blocks (Codex's current shape), each citing one of
  N rollout_summaries/*.md, whose header gives the block's updated_at (so all N summaries
  are opened);
- gemini-cli: a project of N folders, each with a GEMINI.md (`--project`);
- openclaw: N/2 daily logs memory/YYYY-MM-DD.md and N/2 wiki pages of one claim each;
- cursor: N rules .cursor/rules/*.mdc with front matter;
- markdown: N notes outside git, a third dated by name, a third by front matter.

With --git each source folder is first committed to a git work tree of its own, so the
reader replays its history (one commit) instead of reading the files as they stand.

The target (issue 38): under 5 s each.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_sources import claude_home, sentence  # noqa: E402

from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.ingest.adapters import (  # noqa: E402
    claude_code,
    codex,
    cursor,
    gemini_cli,
    known_facts,
    markdown,
    openclaw,
)
from synapse_tui.core.ingest.adapters.sync import sync_snapshot  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402

DAY0 = datetime(1990, 1, 1, tzinfo=UTC)


def day(i: int) -> str:
    return (DAY0 + timedelta(days=i)).strftime("%Y-%m-%d")


def codex_folder(root: Path, n: int) -> Path:
    rng = random.Random(38)
    (root / "rollout_summaries").mkdir(parents=True)
    blocks = []
    for i in range(n):
        name = f"{day(i)}T10-00-00-{i:04x}-task_{i}.md"
        (root / "rollout_summaries" / name).write_text(
            f"thread_id: t{i}\nupdated_at: {day(i)}T10:30:00+00:00\nrollout_path: /r/{i}.jsonl\n"
            f"cwd: /home/dev/p{i % 20}\n\n{sentence(rng)}\n"
        )
        blocks.append(
            f"# Task Group: task {i}\n\nscope: s{i}\napplies_to: cwd=/home/dev/p{i % 20}; reuse_rule=r\n\n"
            f"## Task 1: t{i}, success\n\n### rollout_summary_files\n\n"
            f"- rollout_summaries/{name} (cwd=/home/dev/p{i % 20}, thread_id=t{i})\n\n"
            f"### keywords\n\n- k{i % 7}, k{i % 11}\n\n## Reusable knowledge\n\n- {sentence(rng)} ({i}) [Task 1]\n"
        )
    (root / "MEMORY.md").write_text("\n".join(blocks))
    return root


def gemini_project(root: Path, n: int) -> Path:
    rng = random.Random(38)
    for i in range(n):
        folder = root / f"pkg{i // 100}" / f"mod{i}"
        folder.mkdir(parents=True)
        (folder / "GEMINI.md").write_text(f"# Module {i}\n\n- {sentence(rng)} ({i})\n")
    return root


def openclaw_state(root: Path, n: int) -> Path:
    rng = random.Random(38)
    memory = root / "workspace" / "memory"
    memory.mkdir(parents=True)
    for i in range(n // 2):
        (memory / f"{day(i)}.md").write_text(f"# {day(i)}\n\n- {sentence(rng)} ({i})\n")
    pages = root / "wiki" / "main" / "entities"
    pages.mkdir(parents=True)
    for i in range(n - n // 2):
        page = {
            "id": f"entity.e{i}",
            "title": f"Entity {i}",
            "updatedAt": f"{day(i)}T12:00:00.000Z",
            "claims": [
                {
                    "id": f"e{i}.c1",
                    "text": f"{sentence(rng)} ({i})",
                    "status": "supported",
                    "confidence": 0.8,
                    "evidence": [{"sourceId": f"source.s{i}", "updatedAt": f"{day(i)}T12:00:00.000Z"}],
                }
            ],
        }
        (pages / f"e{i}.md").write_text(f"---\n{json.dumps(page)}\n---\n\n# Entity {i}\n")
    return root / "workspace"


def cursor_project(root: Path, n: int) -> Path:
    rng = random.Random(38)
    rules = root / ".cursor" / "rules"
    rules.mkdir(parents=True)
    for i in range(n):
        (rules / f"rule-{i}.mdc").write_text(
            f"---\ndescription: rule {i}\nglobs: src/m{i}/**/*.ts\nalwaysApply: false\n---\n"
            f"- {sentence(rng)} ({i})\n"
        )
    return root


def markdown_folder(root: Path, n: int) -> Path:
    rng = random.Random(38)
    for i in range(n):
        folder = root / f"topic{i % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        if i % 3 == 0:
            (folder / f"{day(i)}-note.md").write_text(f"- {sentence(rng)} ({i})\n")
        elif i % 3 == 1:
            (folder / f"note{i}.md").write_text(
                f"---\ntitle: note {i}\ncreated: {day(i)}\n---\n# Note {i}\n\n{sentence(rng)} ({i})\n"
            )
        else:
            (folder / f"note{i}.md").write_text(f"- {sentence(rng)} ({i})\n- {sentence(rng)}\n")
    return root


def measure(label: str, db: Path, read) -> tuple[float, float]:
    """(first sync, second sync) wall seconds; prints the details."""
    config = Config()
    with Store.open(db, create=True) as store:
        t0, c0 = time.perf_counter(), time.process_time()
        snap = read([])
        t1 = time.perf_counter()
        result = sync_snapshot(store, snap, config)
        t2, c2 = time.perf_counter(), time.process_time()
    first = t2 - t0
    print(
        f"{label}: first sync {first:.2f} s (read {t1 - t0:.2f} s, store + graph {t2 - t1:.2f} s;"
        f" CPU {c2 - c0:.2f} s), {result.added:,} added"
    )
    before = db.read_bytes()
    with Store.open(db) as store:
        t0 = time.perf_counter()
        snap = read(known_facts(store, snap.system))
        result = sync_snapshot(store, snap, config)
        second = time.perf_counter() - t0
    same = db.read_bytes() == before
    print(
        f"{label}: second sync {second:.2f} s, {result.added} added, {result.unchanged:,} unchanged,"
        f" store file changed: {'no' if same else 'YES'}"
    )
    return first, second


SOURCES = {
    "codex": (codex_folder, lambda src, known: codex.read(src, known=known)),
    "gemini-cli": (gemini_project, lambda src, known: gemini_cli.read(None, project=src, known=known)),
    "openclaw": (openclaw_state, lambda src, known: openclaw.read(src, known=known)),
    "cursor": (cursor_project, lambda src, known: cursor.read(None, project=src, known=known)),
    "markdown": (markdown_folder, lambda src, known: markdown.read(src, known=known)),
}


def committed(folder: Path) -> None:
    """`folder` made a git work tree of one commit: the reader then replays its history."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b.c"}
    env |= {"GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b.c"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "memory"]):
        subprocess.run(["git", "-C", str(folder), *args], check=True, env=env)


def main() -> None:
    args = sys.argv[1:]
    in_git = "--git" in args
    args = [a for a in args if a != "--git"]
    n = int(args.pop(0)) if args and args[0].isdigit() else 10_000
    chosen = args or list(SOURCES)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (others' work slows wall times)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        home = claude_home(tmp_path / ".claude", n)
        base = measure(
            f"baseline claude-code, {n:,} topic files",
            tmp_path / "cc.db",
            lambda known: claude_code.read(home, known=known),
        )
        for name in chosen:
            make, read = SOURCES[name]
            source = make(tmp_path / name, n)
            if in_git:
                committed(tmp_path / name)
                name = f"{name} in git"
            first, second = measure(
                f"{name}, {n:,} files", tmp_path / f"{name}.db", lambda known, s=source, r=read: r(s, known)
            )
            print(
                f"{name}: {first / base[0]:.2f}x the baseline's first sync, {second / base[1]:.2f}x its second"
            )


if __name__ == "__main__":
    main()
