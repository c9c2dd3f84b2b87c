"""What finding agents' memory in a work tree costs (issue 39, hidden memory places).

    python benchmarks/bench_memory_walk.py FOLDER [FOLDER ...] [--repeat N]

For each folder, the walks the importers make to list their files are timed (the best of
N runs, each walk alone) against a baseline in the same run: `files_inside(folder, ".md")`,
the walk of every folder that is not hidden (dependency folders apart) that git-notes made
before hidden places at any depth were read, and still the shape of `--from markdown`
outside git.

  git-notes    markdown_memory.memory_files: every memory file, hidden folders at any depth
               included, NOT_WALKED (`.git`, `.venv`, caches...) and dependency folders apart
  cursor       memory_files(cursor_rule): Cursor's rules, the project's and its subfolders'
  claude-code  claude_code._nested: the CLAUDE.md files of the subfolders, hidden ones too

Each line gives the seconds, the ratio to the baseline and the files found. Nothing in
FOLDER is run: the walk only lists names (os.scandir).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from synapse_tui.core.ingest.adapters import claude_code, cursor, files_inside  # noqa: E402
from synapse_tui.core.ingest.adapters import markdown_memory as mm  # noqa: E402


def _best(walk, repeat: int) -> tuple[float, int]:
    best, found = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        found = len(walk())
        best = min(best, time.perf_counter() - started)
    return best, found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    for folder in args.folders:
        walks = {
            "baseline (*.md, hidden apart)": lambda f=folder: files_inside(f, ".md")[0],
            "git-notes memory_files": lambda f=folder: mm.memory_files(f)[0],
            "cursor rules": lambda f=folder: mm.memory_files(f, mm.cursor_rule, enter=cursor._may_hold_rules)[
                0
            ],
            "claude-code subfolders": lambda f=folder: claude_code._nested(f, []),
        }
        print(folder)
        base = None
        for name, walk in walks.items():
            seconds, found = _best(walk, args.repeat)
            base = base or seconds
            print(f"  {name:32s} {seconds:8.3f} s  x{seconds / base:5.2f}  {found:6d} files")


if __name__ == "__main__":
    main()
