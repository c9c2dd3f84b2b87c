"""`synapse-tui mcp DB` typed in a terminal by a person, not run by an agent's client: it
showed nothing at all and seemed to hang; it now says what it is waiting for."""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.cli_run import run
from tests.helpers import base_facts, write_jsonl

pytest.importorskip("mcp")

ROOT = Path(__file__).parents[1]


def test_mcp_in_a_terminal_says_it_waits_for_a_client(tmp_path):
    db = tmp_path / "memory.db"
    run("import", write_jsonl(tmp_path / "facts.jsonl", base_facts()), "--db", db)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the server, on this checkout, its stdio the terminal
        os.environ.update(PYTHONPATH=str(ROOT))
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "synapse_tui", "mcp", str(db)])
    shown = b""
    try:
        end = time.monotonic() + 60
        while b"Ctrl-C stops" not in shown and time.monotonic() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    shown += os.read(fd, 65536)
                except OSError:
                    break
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    said = b" ".join(shown.split()).decode()
    assert said.startswith(f"serving {db} over MCP on stdio:"), said
    assert "there is nothing to type here" in said and "Ctrl-C stops." in said
