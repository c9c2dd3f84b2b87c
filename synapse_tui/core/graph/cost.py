"""What a kNN route will cost on this machine now (issue 26).

The route of a large space is chosen by time, not by a fixed rule: the recall samples'
exact top-10 (which every approximate build computes anyway) time an exact pass over a
known share of the products, the probed search's plan counts its own products, and an
index (HNSW, NN-descent) is timed on a sample of the rows. Threads are sized to the CPUs
this process may use and that the load average leaves free: threads that outnumber the
free cores wait on each other, and a runtime spinning while it waits takes cycles the
other processes need (the package's __init__ makes the BLAS's and OpenMP's idle threads
sleep).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

# The exact search's time per product against the recall samples' (the same products, with
# the locality order, the running top-k and the final polish on top): between the figures
# measured on quiet and busy machines (benchmarks/RESULTS.md, bench_graph.py).
EXACT_PER_PRODUCT = 1.2
# The probed search's time per planned product against the samples': offers to both ends,
# the plan's second look and the final polish on top of the products themselves.
PROBED_PER_PRODUCT = 3.5
# An approximate route is taken only when its estimate is under this share of exact's: the
# estimates are rough, and the approximate route may still widen its search.
MARGIN = 0.8
TRIAL_ROWS = 4000  # rows an index is timed on: its time scales as n log n from there


def cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def free_cpus() -> int:
    """The CPUs the load average leaves free, this process's own running thread counted
    as free (the load includes it); at least one."""
    n = cpus()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return n
    return max(1, min(n, round(n + 1 - load)))


@contextmanager
def sized_threads(threads: int) -> Iterator[None]:
    """faiss's OpenMP and numba's threads at most `threads` (each only if already loaded:
    the caller imports what it will use first), restored on exit. The BLAS keeps its own
    count: its threads work through each product rather than wait, and capping them at
    the free CPUs made an exact search on a busy machine half again as slow."""
    with ExitStack() as undo:
        faiss = sys.modules.get("faiss")
        if faiss is not None:
            before = faiss.omp_get_max_threads()
            faiss.omp_set_num_threads(max(1, min(before, threads)))
            undo.callback(faiss.omp_set_num_threads, before)
        numba = sys.modules.get("numba")
        if numba is not None:
            was = numba.get_num_threads()
            numba.set_num_threads(max(1, min(was, threads)))
            undo.callback(numba.set_num_threads, was)
        yield


def per_product(seconds: float, rows: int, n: int) -> float:
    """Seconds per row-by-row product, from `rows` rows searched exactly against `n`."""
    return seconds / max(1, rows * n)


def exact_seconds(unit: float, n: int) -> float:
    """An exact search of n rows: half the n x n products (each tile serves both ends)."""
    return EXACT_PER_PRODUCT * unit * n * n / 2


def probed_seconds(unit: float, n: int, work: float) -> float:
    """A probed search whose products are `work` of the n x n."""
    return PROBED_PER_PRODUCT * unit * n * n * work


def trial(run: Callable[[int], float | None], n: int, rows: int = TRIAL_ROWS) -> float:
    """The time `run(m)` takes on m of the n rows, scaled to n as n log n (an index's
    build and search both grow so); `run` may return the seconds to scale instead (its
    own timing of what the full build would do)."""
    m = min(n, rows)
    t = time.perf_counter()
    took = run(m)
    took = time.perf_counter() - t if took is None else took
    return took * n / m * math.log(max(n, 2)) / math.log(max(m, 2))


class OverBudget(Exception):
    """An approximate search that would take longer than the exact one it replaces."""


class Budget:
    """The time an approximate route may take: the exact search's estimate, counted from
    when the route starts."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.start = time.perf_counter()

    def check(self, remaining: float) -> None:
        """Give up when what is spent plus `remaining` passes the budget."""
        if self.seconds is not None and time.perf_counter() - self.start + remaining > self.seconds:
            raise OverBudget
