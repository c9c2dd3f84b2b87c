"""Idle BLAS threads that spin (issue 26 point 1). Run:
python benchmarks/bench_threads.py [--n 30000] [--write-results]

numpy's OpenBLAS keeps a thread spinning for OPENBLAS_THREAD_TIMEOUT (2**28 cycles by
default) after each product; synapse-tui sets 2**4 (synapse_tui/__init__.py). The exact kNN
filters each tile of products in numpy between BLAS calls, so a spinning thread burns a
core the whole time. For each setting, a fresh interpreter times the exact top-10 search
over N facts of 6-14 words of 200 (unstructured: the filters let most through) beside one
plain X @ X.T pass over the same vectors, wall and CPU seconds, first on the machine as it
is, then with a busy loop holding one core (another job on a two-core machine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from results import Results  # noqa: E402

CHILD = """
import json, resource, sys, time
import synapse_tui  # sets the thread timeout unless the environment already does
sys.path.insert(0, {here!r})
from synth import vocabulary_texts
from synapse_tui.core.graph import knn, lexical

n = {n}
X = lexical.embed_texts(vocabulary_texts(n, zipf=0.0))
ranks = knn.string_ranks([f"f{{i:07d}}" for i in range(n)])

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

def plain_pass():
    for i in range(0, n, knn.ROW_BLOCK):
        for j in range(0, n, knn.COL_BLOCK):
            X[i : i + knn.ROW_BLOCK] @ X[j : j + knn.COL_BLOCK].T

out = {{}}
for name, run in (("pass", plain_pass), ("exact", lambda: knn.exact_knn(X, ranks, 10))) * 2:
    t, c = time.perf_counter(), cpu()
    run()
    wall, used = time.perf_counter() - t, cpu() - c
    best = out.get(name)
    if best is None or wall < best[0]:
        out[name] = (wall, used)
print(json.dumps(out))
"""


def measure(n: int, timeout: str) -> dict[str, tuple[float, float]]:
    env = {**os.environ, "OPENBLAS_THREAD_TIMEOUT": timeout}
    code = CHILD.format(here=str(Path(__file__).parent), n=n)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    n = int(sys.argv[sys.argv.index("--n") + 1]) if "--n" in sys.argv else 30_000
    results = Results("bench_threads.py")
    for busy in (False, True):
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
        time.sleep(1 if busy else 0)
        try:
            figures = {timeout: measure(n, timeout) for timeout in ("28", "4")}
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait()
        where = "one core busy" if busy else "machine as it is"
        for timeout, f in figures.items():
            (pass_wall, pass_cpu), (wall, used) = f["pass"], f["exact"]
            print(
                f"{where}, OPENBLAS_THREAD_TIMEOUT={timeout}: exact kNN {wall:.2f} s wall, {used:.2f} s CPU;"
                f" pass {pass_wall:.2f} s wall, {pass_cpu:.2f} s CPU ({wall / pass_wall:.2f}x the pass)",
                flush=True,
            )
        spin, sleep = figures["28"]["exact"], figures["4"]["exact"]
        label = f"exact kNN, {n:,} facts of 6-14 words of 200, {where}"
        results.add(f"{label}: wall, idle threads sleeping", sleep[0], baseline="spinning", against=spin[0])
        results.add(f"{label}: CPU, idle threads sleeping", sleep[1], baseline="spinning", against=spin[1])
    print(results.table())
    if "--write-results" in sys.argv:
        results.save()


if __name__ == "__main__":
    main()
