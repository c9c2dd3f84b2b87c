"""What finding agents' memory in a work tree costs (issue 39, hidden memory places).

    python benchmarks/bench_memory_walk.py FOLDER [FOLDER ...] [--repeat N]

For each folder, the walks the importers make to list their files are timed (the best of
N runs, each walk alone) against a baseline in the same run: `files_inside(folder, ".md")`,
the walk of every folder that is not hidden (dependency folders apart) that git-notes made
before hidden places at any depth were read, and `--from markdown` outside git made until
issue 41.

  markdown     markdown.notes_of: `--from markdown` outside git now, git-notes' walk with
               trash folders apart
  git-notes    markdown_memory.memory_files: every memory file, hidden folders at any depth
               included, NOT_WALKED (`.git`, `.venv`, caches...) and dependency folders apart
  cursor       memory_files(cursor_rule): Cursor's rules, the project's and its subfolders'
  claude-code  claude_code._nested: the CLAUDE.md files of the subfolders, hidden ones too
  gemini-cli   gemini_cli._context_files: a project's GEMINI.md files as Gemini CLI finds
               them (hidden folders entered, `.geminiignore`), against the walk it replaced
               (os.walk, hidden folders, node_modules and __pycache__ apart), kept here

Each line gives the seconds, the ratio to the baseline and the files found. Nothing in
FOLDER is run: the walk only lists names (os.scandir).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from synapse_tui.core.ingest.adapters import (  # noqa: E402
    claude_code,
    cursor,
    files_inside,
    gemini_cli,
    markdown,
)
from synapse_tui.core.ingest.adapters import markdown_memory as mm  # noqa: E402


def _best(walk, repeat: int) -> tuple[float, int]:
    best, found = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        found = len(walk())
        best = min(best, time.perf_counter() - started)
    return best, found


def _gemini_before(folder: Path) -> list[Path]:
    """gemini_cli._context_files as it was before issue 41: every GEMINI.md below, hidden
    folders, node_modules and __pycache__ apart."""
    found = []
    for top, dirs, names in os.walk(folder):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__")
        )
        if "GEMINI.md" in names:
            found.append(Path(top) / "GEMINI.md")
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    for folder in args.folders:
        walks = {
            "baseline (*.md, hidden apart)": lambda f=folder: files_inside(f, ".md")[0],
            "markdown outside git (now)": lambda f=folder: markdown.notes_of(f)[0],
            "git-notes memory_files": lambda f=folder: mm.memory_files(f)[0],
            "cursor rules": lambda f=folder: mm.memory_files(f, mm.cursor_rule, enter=cursor._may_hold_rules)[
                0
            ],
            "claude-code subfolders": lambda f=folder: claude_code._nested(f, []),
            "gemini-cli project (before)": lambda f=folder: _gemini_before(f),
            "gemini-cli project (now)": lambda f=folder: gemini_cli._context_files(f)[0],
        }
        print(folder)
        base = None
        for name, walk in walks.items():
            seconds, found = _best(walk, args.repeat)
            base = base or seconds
            print(f"  {name:32s} {seconds:8.3f} s  x{seconds / base:5.2f}  {found:6d} files")


if __name__ == "__main__":
    main()
