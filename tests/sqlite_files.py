"""Real SQLite files in a state a store meets mid-session, made as another program or the
machine would make them: a page overwritten in place, a file no one may write (chattr +i,
which stops root too, where chmod 0444 does not)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import run, write_jsonl

CURE = "restore a backup, or recover it with sqlite3's .recover"


def damage(db: Path | str) -> str:
    """SHOWN's line for the file damaged (`damaged_store`)."""
    return f"{db}: the database is corrupt (database disk image is malformed); {CURE}"


def many_facts(folder: Path, n: int = 300) -> Path:
    """A store of `n` facts, long enough to fill dozens of pages of its facts table."""
    src = write_jsonl(
        folder / "many.jsonl",
        [
            {
                "id": f"n{i:04d}",
                "text": f"note {i} " + "words of a long fact " * 20,
                "created_at": "2026-10-01T00:00:00Z",
            }
            for i in range(n)
        ],
    )
    db = folder / "memory.db"
    run("import", src, "--db", db)
    return db


def leaves(db: Path, table: str = "facts") -> list[int]:
    """The table's leaf pages, in the file's order (SQLite's dbstat)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", (table,)
        ).fetchall()
    return [page for (page,) in rows]


def overwrite(db: Path, page: int) -> None:
    """Another program's bytes over one page of the file, in place."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    fd = os.open(db, os.O_WRONLY)
    try:
        os.pwrite(fd, b"\xff" * size, (page - 1) * size)
    finally:
        os.close(fd)


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    """`path` immutable (chattr +i) while the block runs: no one, root included, may write
    it or open it for writing. Skipped where the file system or the container refuses it."""
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"cannot make a file immutable here: {made.stderr.strip() or made.returncode}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@contextlib.contextmanager
def read_only_wal(db: Path) -> Iterator[None]:
    """The store's -wal file immutable while another program holds the store open (so the
    -wal is there): SQLite opens the store for writing and its WAL read-only, and refuses a
    write itself."""
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("SELECT count(*) FROM facts").fetchone()
        wal = db.with_name(db.name + "-wal")
        assert wal.exists()
        with immutable(wal):
            assert os.access(db, os.W_OK) and os.access(db.parent, os.W_OK)  # as the store sees them
            yield
    finally:
        holder.close()


def content(db: Path) -> list[str]:
    """Every row of every table, as SQL (the file's bytes may change on a checkpoint alone)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return list(conn.iterdump())


def _sh(*args: object) -> str:
    """A system command's output; the test is skipped, saying why, when the machine refuses it."""
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot {' '.join(map(str, args[:2]))} here: {done.stderr.strip() or done.returncode}")
    return done.stdout


@contextlib.contextmanager
def bad_sectors_from(store: Path, page: int, folder: Path) -> Iterator[Path]:
    """A copy of `store` on a disk of its own that fails every read from the sectors of its
    page `page` on (EIO, as a disk with bad sectors does): an ext2 image holding the copy,
    mounted read-only from a loop device, which is then shrunk to end where that page
    starts. Yields the copy's path. Needs root, loop devices and mkfs.ext2 (else skipped)."""
    content_dir, image, mounted = folder / "content", folder / "disk.img", folder / "disk"
    content_dir.mkdir()
    mounted.mkdir()
    with contextlib.closing(sqlite3.connect(store)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    (content_dir / store.name).write_bytes(store.read_bytes())  # the store alone: no -wal
    with open(image, "wb") as out:
        out.truncate(4 * store.stat().st_size + (1 << 20))
    _sh("mkfs.ext2", "-q", "-b", "1024", "-d", content_dir, image)
    device = _sh("losetup", "-f", "--show", image).strip()
    try:
        _sh("mount", "-o", "ro", device, mounted)
        try:
            copy = mounted / store.name
            first = (page - 1) * size // 1024  # the page's first block of the file
            at = None
            for line in _sh("filefrag", "-v", copy).splitlines():
                parts = line.replace(":", " ").replace("..", " ").split()
                if len(parts) >= 5 and parts[0].isdigit() and int(parts[1]) <= first <= int(parts[2]):
                    at = int(parts[3]) + first - int(parts[1])
            assert at is not None, f"no block of {copy} holds page {page}"
            os.truncate(image, at * 1024)  # the device ends where the page starts
            _sh("losetup", "-c", device)
            yield copy
        finally:
            subprocess.run(["umount", "-l", str(mounted)], check=False)  # once its files are closed
    finally:
        subprocess.run(["losetup", "-d", device], check=False)
