"""What placing a large rewrite costs when git gave no hunks for it (a merge commit, the work
tree). Run: python benchmarks/bench_linediff.py [--quick] [--write-results]

A generated file of the shape a real repository commits beside its notes (liam-hq/liam's
`docs/packages-license.md`: 19,000 lines, most of them blank or one of a few headings,
168 commits, many of them merges): two versions more than MAX_CHANGES lines apart, so
linediff falls back to difflib. `--from markdown` of that repository did not finish in 10
minutes; each such fallback took 27 s with difflib's autojunk off. The module's fallback
against the same fallback with autojunk off (the baseline), same texts, same run; both
placements are checked to be a valid diff (every line outside a region is kept). Then
blame's match of an uncommitted edit on 19,000 lines, against difflib with autojunk off.
"""

from __future__ import annotations

import sys
import time
from difflib import SequenceMatcher
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).parent))
from results import Results  # noqa: E402

from synapse_tui.core.ingest.adapters import gitlog, linediff  # noqa: E402

FIGURES = Results("bench_linediff.py")


def licenses(names: range, skip: set[int]) -> list[str]:
    """A license list as a package tool writes it: per package a heading, an empty heading,
    `Paths`, a path, the license, blank lines between."""
    lines = ["# project", "", "", "## Summary", "* 1414 MIT", "", ""]
    for n in names:
        if n in skip:
            continue
        lines += [
            f"### pkg-{n}@1.{n % 7}.0",
            "",
            "#### ",
            "",
            "##### Paths",
            f"* /repo/node_modules/pkg-{n}",
            "",
        ]
        lines += ['<a href="http://spdx.org/licenses/MIT.html">MIT</a> permitted', "", ""]
    return lines


def valid(old: list[str], new: list[str], regions: list[tuple[int, int, int, int]]) -> bool:
    """Whether the lines outside the regions are the same lines, in order, on both sides."""
    keep_a = [line for i, line in enumerate(old) if not any(r[0] <= i < r[1] for r in regions)]
    keep_b = [line for j, line in enumerate(new) if not any(r[2] <= j < r[3] for r in regions)]
    return keep_a == keep_b


def timed(old: list[str], new: list[str], autojunk: bool | None) -> tuple[float, list]:
    """linediff.changes as it is (autojunk None), or with difflib's autojunk forced."""
    real = linediff.SequenceMatcher
    if autojunk is not None:
        linediff.SequenceMatcher = lambda a_, a, b: SequenceMatcher(a_, a, b, autojunk=autojunk)  # type: ignore[assignment,misc]
    try:
        t0 = time.perf_counter()
        regions = linediff.changes(old, new)
        return time.perf_counter() - t0, regions
    finally:
        linediff.SequenceMatcher = real  # type: ignore[misc]


def blame_figure(old: list[str]) -> None:
    """Blame's match of the work tree's lines to the committed ones (gitlog.kept_lines) on
    the 19,000-line list with one uncommitted line, against difflib with autojunk off (what
    blame used before), same texts; both matches are checked to be the same lines."""
    new = [*old[:15000], "- an uncommitted note", *old[15000:]]
    t0 = time.perf_counter()
    now = gitlog.kept_lines(old, new)
    fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    blocks = SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks()
    slow = time.perf_counter() - t0
    assert now == [(a + k, b + k) for a, b, size in blocks for k in range(size)]
    print(f"blame, {len(new):,} lines, one uncommitted: {fast:.3f} s; autojunk off {slow:.2f} s")
    FIGURES.add(
        f"blame's match of a work tree with one uncommitted line, {len(new):,} lines",
        fast,
        baseline="difflib with autojunk off, as before",
        against=slow,
    )


def main() -> None:
    quick = "--quick" in sys.argv
    size = 600 if quick else 1200
    old = licenses(range(size), skip=set(range(0, size, 5)))
    new = licenses(range(size + size // 4), skip=set(range(2, size, 7)))
    fast, regions = timed(old, new, None)
    slow, base = timed(old, new, False)
    assert valid(old, new, regions) and valid(old, new, base)
    changed = sum(r[1] - r[0] + r[3] - r[2] for r in regions)
    before = sum(r[1] - r[0] + r[3] - r[2] for r in base)
    print(
        f"{len(old):,} x {len(new):,} lines, {changed:,} changed ({before:,} with autojunk off):"
        f" {fast:.2f} s; autojunk off {slow:.2f} s"
    )
    FIGURES.add(
        f"a rewrite git gave no hunks for, {len(old):,} x {len(new):,} lines ({changed:,} changed)",
        fast,
        baseline="difflib with autojunk off, as before",
        against=slow,
    )
    blame_figure(licenses(range(1900), set()))
    if "--write-results" in sys.argv:
        FIGURES.save()


if __name__ == "__main__":
    main()
