"""`benchmarks/synth.py` has a command line: --help, and N facts into a store (issue 23)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from synapse_tui.core.store.db import Store

SYNTH = Path(__file__).resolve().parents[2] / "benchmarks" / "synth.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SYNTH), *args], capture_output=True, text=True, timeout=120)


def test_help_says_how():
    out = run("--help")
    assert out.returncode == 0 and "usage: synth.py" in out.stdout and "OUT.db" in out.stdout


def test_it_writes_a_store_of_n_facts(tmp_path):
    db = tmp_path / "synth.db"
    out = run("60", str(db))
    assert out.returncode == 0, out.stderr
    with Store.open(db) as store:
        assert store.count() == 60
        assert store._conn.execute("SELECT count(*) FROM semantic_edges").fetchone()[0] > 0
    assert run("60", str(db)).returncode == 2  # never over an existing store
