"""Where two texts differ, line by line, in the places git's own diff puts its hunks.

Which removed and added blocks of a note can be one block edited is decided per change of
the note (markdown_memory.pair_edits), so the changes should be those a person sees in
`git diff -U0`. Python's difflib finds the longest common runs first, which often cuts one
rewrite into several places around a blank line; git finds a shortest edit script (Myers'
O(ND) algorithm, "An O(ND) Difference Algorithm and Its Variations", 1986) and then slides
each run of changed lines as far as it can go (up, merging with the runs it meets, then
down), leaving it at its lowest place unless one lines it up with a change of the other
text. This module does the same, in a few dozen lines of Python; on a few thousand changed
lines (a file rewritten whole) it falls back to difflib, whose cost does not grow as the
square of the changes as long as its autojunk is on: off, a generated file of 19,000 lines
that are mostly blank or one of a few headings (a license list) took 27 s a change, and a
repository's import did not finish in 10 minutes (benchmarks/bench_linediff.py).

On the real-memory corpus's 13 development repositories (benchmarks/bench_real_memory.py),
the regions of 1,013 diffs replayed are git's hunks exactly for 971 (96%), against 810 (80%)
for difflib's opcodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

MAX_CHANGES = 1000  # past this many changed lines, difflib: Myers' trace grows as their square

Region = tuple[int, int, int, int]  # (old start, old end, new start, new end), 0-based, end excluded


def changes(old: Sequence[str], new: Sequence[str]) -> list[Region]:
    """Each run of changed lines between `old` and `new`, in order."""
    ca, cb = _changed(old, new)
    _compact(old, ca, cb)
    _compact(new, cb, ca)
    return _regions(ca, cb)


def _changed(old: Sequence[str], new: Sequence[str]) -> tuple[list[bool], list[bool]]:
    """Which lines of each side a shortest edit script removes or adds."""
    head = 0
    while head < len(old) and head < len(new) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < len(old) - head and tail < len(new) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    a, b = old[head : len(old) - tail], new[head : len(new) - tail]
    ca = [False] * head + [True] * len(a) + [False] * tail
    cb = [False] * head + [True] * len(b) + [False] * tail
    # a line found nowhere on the other side cannot be kept: left out of the search, which
    # then costs what the lines both sides share changed, not what a rewrite added
    shared = set(a) & set(b)
    ka = [x for x, line in enumerate(a) if line in shared]
    kb = [y for y, line in enumerate(b) if line in shared]
    codes: dict[str, int] = {}
    kept = _common(
        [codes.setdefault(a[x], len(codes)) for x in ka], [codes.setdefault(b[y], len(codes)) for y in kb]
    )
    if kept is None:  # too many changes for Myers' trace: difflib's matching blocks, autojunk on
        pairs = [
            (x + k, y + k)
            for x, y, size in SequenceMatcher(None, a, b).get_matching_blocks()
            for k in range(size)
        ]
    else:
        pairs = [(ka[x], kb[y]) for x, y in kept]
    for x, y in pairs:
        ca[head + x] = cb[head + y] = False
    return ca, cb


def _common(a: list[int], b: list[int]) -> list[tuple[int, int]] | None:
    """The (a index, b index) of the lines a shortest edit script keeps, in order (Myers'
    greedy forward search, then back along the furthest reaching paths); None past
    MAX_CHANGES changes."""
    n, m = len(a), len(b)
    mid = n + m + 1  # v[mid + k]: the furthest x reached on diagonal k = x - y
    v = [0] * (2 * mid + 1)
    trace: list[list[int]] = []
    for d in range(min(n + m, MAX_CHANGES) + 1):
        trace.append(v[mid - d - 1 : mid + d + 2])  # diagonals -d-1 .. d+1 before step d
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[mid + k - 1] < v[mid + k + 1]):
                x = v[mid + k + 1]  # down: a line of b added
            else:
                x = v[mid + k - 1] + 1  # right: a line of a removed
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            v[mid + k] = x
            if x >= n and y >= m:
                return _back(trace, n, m)
    return None


def _back(trace: list[list[int]], n: int, m: int) -> list[tuple[int, int]]:
    """The kept lines of the path the search found, walked back from (n, m)."""
    kept: list[tuple[int, int]] = []
    x, y = n, m
    for d in range(len(trace) - 1, 0, -1):
        v, k = trace[d], x - y  # v[k + d + 1]: diagonal k after step d - 1
        down = k == -d or (k != d and v[k - 1 + d + 1] < v[k + 1 + d + 1])
        before = k + 1 if down else k - 1
        px = v[before + d + 1]
        sx = px if down else px + 1  # where this step's snake of kept lines begins
        while x > sx:
            x, y = x - 1, y - 1
            kept.append((x, y))
        x, y = px, px - before
    while x > 0 and y > 0:
        x, y = x - 1, y - 1
        kept.append((x, y))
    kept.reverse()
    return kept


def _compact(lines: Sequence[str], ch: list[bool], other: list[bool]) -> None:
    """Slide each run of changed lines of one side up as far as it goes, then down as far
    as it goes, merging with the runs it meets (again while it grows); leave it at the
    lowest place that lines its end up with a change of the other side, else the lowest."""
    slots = [i for i, c in enumerate(other) if not c]  # the other side's kept lines, in order

    def lined_up(rank: int) -> bool:  # the kept line after the run follows a change there
        at = slots[rank] if rank < len(slots) else len(other)
        return at > 0 and other[at - 1]

    n, i, rank = len(lines), 0, 0  # rank: kept lines before the run
    while i < n:
        if not ch[i]:
            i, rank = i + 1, rank + 1
            continue
        s, e = i, i
        while e < n and ch[e]:
            e += 1
        while True:
            size = e - s
            while s > 0 and lines[s - 1] == lines[e - 1]:
                s, e, rank = s - 1, e - 1, rank - 1
                ch[s], ch[e] = True, False
                while s > 0 and ch[s - 1]:
                    s -= 1
            best = e if lined_up(rank) else None
            while e < n and lines[s] == lines[e]:
                ch[s], ch[e] = False, True
                s, e, rank = s + 1, e + 1, rank + 1
                while e < n and ch[e]:
                    e += 1
                if lined_up(rank):
                    best = e
            if e - s == size:
                break
        while best is not None and e > best:
            s, e, rank = s - 1, e - 1, rank - 1
            ch[s], ch[e] = True, False
        i = e


def _regions(ca: list[bool], cb: list[bool]) -> list[Region]:
    out: list[Region] = []
    i = j = 0
    while i < len(ca) or j < len(cb):
        if (i < len(ca) and ca[i]) or (j < len(cb) and cb[j]):
            i1, j1 = i, j
            while i < len(ca) and ca[i]:
                i += 1
            while j < len(cb) and cb[j]:
                j += 1
            out.append((i1, i, j1, j))
        else:
            i, j = i + 1, j + 1
    return out
