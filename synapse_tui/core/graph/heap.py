"""glibc's malloc, set for numpy's large temporaries (Linux only; elsewhere a no-op).

glibc serves a block above its mmap threshold (128 KiB at start) from fresh pages and
returns them to the kernel on free; it raises that threshold as such blocks are freed, up to
32 MiB, and gives back the heap's free top above twice it. Numpy work in steps of a few
MiB (the lexical embedder, the kNN searches' blocks) can keep missing that adjustment, or
keep trimming, so every step faults its pages in again (a third of the embedding's time;
benchmarks/RESULTS.md). The thresholds are fixed where glibc's own adjustment ends
(32 MiB, and twice it to trim): blocks above 32 MiB (a million vectors) still go back to
the kernel when freed, and at most 64 MiB of free heap is kept.
"""

from __future__ import annotations

import ctypes
import functools
import sys

_M_TRIM_THRESHOLD = -1  # malloc.h
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20


@functools.cache
def keep_blocks() -> bool:
    """Fix the thresholds, once per process; whether they were set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
