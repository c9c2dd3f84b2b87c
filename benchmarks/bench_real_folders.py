"""`import --from markdown` on whole real repositories, as a newcomer points it (a session's
walkthrough): not only the memory files the corpus collects, every Markdown file a
repository holds, with its git history.

    python benchmarks/bench_real_folders.py [--mirrors DIR] [--only OWNER+NAME ...] [--write-results]

For each repository (the `fetch` tool's snapshots under DIR, default /work/.mirror), a
local clone (a clone runs nothing of the repository's) is read by the markdown reader, as
`import --from markdown` reads it, and the figures printed are: facts, seconds, the
dependency folders named under `left out` (node_modules...), the labels passed over
(`**Next Steps:**` right before a list, code or a table: `left out` counts them), and the
facts that are still a label alone (one followed by a paragraph) or a text holding a
heading line (a note kept inside one bullet).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_real_corpus import is_label  # noqa: E402
from results import Results  # noqa: E402

from synapse_tui.core.ingest.adapters import markdown  # noqa: E402

# Public repositories fetched for the corpus search but not in it: memory banks, CLAUDE.md,
# AGENTS.md and Cursor rules beside the rest of a project's Markdown (one commits its
# node_modules, one a Python virtual environment)
REPOS = [
    "0x4007+travel-stipend",
    "0xmichalis+nftbk",
    "1amageek+Buffett",
    "1nst4ll+mango-news",
    "270aldo+ngx.agents",
    "31103+MedFeeBot",
    "5dengz+mungcourse-client-ios",
    "7Spade+ng-alain-master",
    "9xlabs-vn+wifi-vip",
    "cuongtranhung+XP",
    "jan3dev+a1echos",
    "ndewijer+Investment-Portfolio-Manager",
    "scarecr0w12+ctrl-alt-play-panel",
    "space-cadet+memory-bank",
]
_HEADING_LINE = re.compile(r"\n\s*#{1,6} ")
_PASSED = re.compile(r"^([\d,]+) label lines? not read as facts")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--write-results", action="store_true")
    args = ap.parse_args()
    results = Results("bench_real_folders.py")
    totals = {"facts": 0, "passed": 0, "labels": 0, "headings": 0, "seconds": 0.0, "dependency folders": 0}
    print(f"{'repository':40} {'facts':>7} {'s':>6} {'deps':>4} {'passed':>6} {'labels':>6} {'heads':>5}")
    for name in args.only or REPOS:
        snapshot = Path(args.mirrors) / name / "repo"
        if not snapshot.exists():
            print(f"{name:40} (no snapshot)")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            clone = Path(tmp) / name
            # a snapshot may lack its largest blobs (binaries): git then says the checkout
            # failed, with every other file checked out
            subprocess.run(["git", "clone", "-q", str(snapshot), str(clone)], capture_output=True)
            if not (clone / ".git").is_dir():
                print(f"{name:40} (could not clone)")
                continue
            t = time.perf_counter()
            snap = markdown.read(clone)
            took = time.perf_counter() - t
        texts = [f.text for f in snap.facts]
        row = {
            "facts": len(texts),
            "passed": sum(
                int(m.group(1).replace(",", "")) for line in snap.left_out if (m := _PASSED.match(line))
            ),
            "labels": sum(is_label(x) for x in texts),
            "headings": sum(bool(_HEADING_LINE.search(x)) for x in texts),
            "seconds": took,
            "dependency folders": sum("a dependency folder" in line for line in snap.left_out),
        }
        for k, v in row.items():
            totals[k] += v
        print(
            f"{name:40} {row['facts']:7,} {took:6.1f} {row['dependency folders']:4}"
            f" {row['passed']:6,} {row['labels']:6,} {row['headings']:5}"
        )
    print(
        f"{'all':40} {totals['facts']:7,} {totals['seconds']:6.1f} {totals['dependency folders']:4}"
        f" {totals['passed']:6,} {totals['labels']:6,} {totals['headings']:5}"
    )
    results.add("facts read, all repositories", totals["facts"], unit="")
    results.add("seconds to read them all", totals["seconds"])
    results.add("dependency folders named, not read", totals["dependency folders"], unit="")
    results.add("labels passed over before a list, code or a table", totals["passed"], unit="")
    results.add("facts that are still a label alone (see is_label)", totals["labels"], unit="")
    results.add("facts holding a heading line", totals["headings"], unit="")
    if args.write_results:
        results.save()


if __name__ == "__main__":
    main()
