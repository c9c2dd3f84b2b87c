"""The browser as a person runs it: `synapse-tui LOCATION` in a real pty, its keys typed
and its output read, for what only the whole process shows (how long it takes to exit)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).parents[2]


class Terminal:
    """`synapse-tui LOCATION` (a file or a server's URL) in a 120 x 40 pty."""

    def __init__(self, location: Path | str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the browser, on this checkout
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # rows, columns
            os.environ.update(PYTHONPATH=str(ROOT), COLUMNS="120", LINES="40")  # pytest's say 80
            os.chdir(ROOT)  # `-m` imports from the working folder first
            os.execv(sys.executable, [sys.executable, "-m", "synapse_tui", str(location)])
        self.output = b""
        self.status: int | None = None

    def read(self, seconds: float, until: bytes | None = None) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (until and until in self.output):
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    self.output += os.read(self.fd, 65536)
                except OSError:  # the child has gone
                    return

    def press(self, key: str) -> None:
        os.write(self.fd, key.encode())

    def exited_within(self, seconds: float) -> bool:
        """Whether the process ended within `seconds` (its exit status in `status`)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.read(0.05)
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(status)
                self.read(0.2)
                return True
        return False

    def close(self) -> None:
        """End the process if it still runs (a test that failed), and the pty."""
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def opened(location: Path | str) -> Terminal:
    """The browser on `location`, once its list is up and its first reads have settled."""
    term = Terminal(location)
    term.read(60, until=b"Disputed")
    assert b"Disputed" in term.output, term.output[-500:]
    term.read(1.0)
    return term
