"""synapse-tui: a terminal browser for the memory of AI agents."""

import os

# Idle threads of the BLAS and of OpenMP sleep instead of spinning. Each library reads its
# variable once, when it loads, so they are set here, before anything of ours imports numpy
# or faiss. numpy's OpenBLAS otherwise spins its threads for about 2**28 cycles after every
# product: the exact kNN filters between products, so at 30,000 unstructured facts its
# second thread burned 7-25% of the search's CPU time, and with one core taken by other
# work the search ran 1.15-1.2x longer (benchmarks/RESULTS.md, bench_threads.py). faiss's OpenMP spinning
# on a busy machine measured 2.7x slower HNSW builds.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")  # 2**4 cycles, OpenBLAS's least
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
