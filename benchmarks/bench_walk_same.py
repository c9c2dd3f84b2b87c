"""The walk that finds agents' memory in a folder (markdown_memory.memory_files) at REV
against this tree's, on real folders: the same files and `left out` lines, and the CPU time
of each, in the same process.

    python benchmarks/bench_walk_same.py [--before REV] [--repeat N] [--time NAME]...
        [--write-results] FOLDER ...

Each FOLDER (a snapshot's files extracted with `git archive HEAD | tar -x`, a clone, a
corpus's replay folder: nothing of it is run, the walk only lists names) is walked by both
codes as three readers ask: every memory file (`markdown`, `git-notes`), Cursor's rules
(`cursor_rule`, entering only where they can be) and GEMINI.md (as gemini_cli asks, its
`.geminiignore` aside). REV's markdown_memory.py is loaded from `git show` beside this
tree's (the rest of the package is this tree's: the walk's helpers did not move). Any
difference is printed and exits 1. The folders named by `--time` (by their last part) are
walked `--repeat` times each way, alternately, the best CPU time of each taken.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from samerun import TREE

sys.path.insert(0, str(TREE))

from synapse_tui.core.ingest.adapters import cursor, gemini_cli  # noqa: E402
from synapse_tui.core.ingest.adapters import markdown_memory as now  # noqa: E402

MODULE = "synapse_tui/core/ingest/adapters/markdown_memory.py"


def code_at(rev: str, into: Path):
    """markdown_memory as it was at `rev`, a module of its own."""
    text = subprocess.run(
        ["git", "-C", str(TREE), "show", f"{rev}:{MODULE}"], capture_output=True, check=True
    )
    path = into / "markdown_memory_before.py"
    path.write_bytes(text.stdout)
    spec = importlib.util.spec_from_file_location("markdown_memory_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def readers(mm) -> dict:
    """How each reader asks the walk: (wanted, enter), with `mm`'s own rules."""

    def gemini(rel: str) -> bool:
        return rel == "GEMINI.md" or rel.rpartition("/")[2] == "GEMINI.md" and mm.memory_path(rel)

    def gemini_enter(rel: str) -> bool:
        return rel.rpartition("/")[2] not in gemini_cli.SKIPPED

    return {
        "markdown": (mm.memory_path, None),
        "cursor": (mm.cursor_rule, cursor._may_hold_rules),
        "gemini-cli": (gemini, gemini_enter),
    }


def walk(mm, how: tuple, folder: Path) -> tuple[float, tuple]:
    wanted, enter = how
    t = time.process_time()
    got = mm.memory_files(folder, wanted, enter=enter)
    return time.process_time() - t, got


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from results import Results

    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--before", default="8220d05")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--time", action="append", default=[], help="a folder's last part: time it (repeatable)")
    ap.add_argument("--write-results", action="store_true")
    args = ap.parse_args()
    results = Results("bench_walk_same.py")
    differ = 0
    total = {"before": 0.0, "after": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        before = code_at(args.before, Path(tmp))
        codes = {"before": (before, readers(before)), "after": (now, readers(now))}
        for name in args.folders:
            folder = Path(name)
            timed = folder.name in args.time
            for reader in codes["after"][1]:
                best: dict[str, float] = {}
                got: dict[str, tuple] = {}
                for _ in range(args.repeat if timed else 1):
                    for label, (mm, how) in codes.items():
                        took, got[label] = walk(mm, how[reader], folder)
                        best[label] = min(best.get(label, took), took)
                total = {k: total[k] + best[k] for k in total}
                if got["before"] != got["after"]:
                    differ += 1
                    files = set(got["before"][0]) ^ set(got["after"][0])
                    lines = set(got["before"][1]) ^ set(got["after"][1])
                    print(f"{name} ({reader}): DIFFER files {sorted(files)[:5]} lines {sorted(lines)[:5]}")
                if timed:
                    b, a = best["before"], best["after"]
                    print(
                        f"{folder.name:40} {reader:10} {len(got['after'][0]):>5} files"
                        f" {b * 1000:7.1f} ms {a * 1000:7.1f} ms {a / b:5.2f}x"
                    )
                    results.add(
                        f"{folder.name}: walk for {reader} ({len(got['after'][0])} files; CPU, best of {args.repeat})",
                        a, baseline=f"code at {args.before}", against=b,
                    )  # fmt: skip
    runs = len(args.folders) * 3
    print(
        f"{len(args.folders)} folders x 3 readers: {differ} of {runs} walks differ;"
        f" CPU in all {total['before']:.2f} s at {args.before}, {total['after']:.2f} s here"
    )
    results.add(
        f"{len(args.folders)} real folders x 3 readers, each walked once: walks giving other files or lines",
        float(differ), baseline="none may", against=0.0, unit="",
    )  # fmt: skip
    results.add(
        f"the same {runs} walks, CPU in all",
        total["after"],
        baseline=f"code at {args.before}",
        against=total["before"],
    )
    if args.write_results:
        results.save()
    if differ:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
