"""A real full disk for a test: a small tmpfs mounted in the test's folder, filled to its last
page. Mounting needs root with the right to mount (a container may not give it): a test
that cannot mount one is skipped, saying why."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(folder: Path, size: str = "2m") -> Iterator[Path]:
    """`folder`, made a tmpfs of `size` while the block runs (unmounted after)."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small disk here: {mounted.stderr.strip() or mounted.returncode}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path, leave: int = 0) -> None:
    """Fill the disk `folder` is on until a write fails for want of space, then give back
    `leave` bytes of it."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError:
            pass
    if leave:
        with open(filler, "r+b") as out:
            out.truncate(max(0, filler.stat().st_size - leave))
