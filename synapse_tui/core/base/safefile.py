"""Reading and writing the small files that sit beside a store (its config), where someone
else may have planted a link, a FIFO or a huge file.

- `write_atomic`: the new content goes to a temporary file of a random name created
  exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`, through `tempfile.mkstemp`) in the target's
  folder, is flushed to disk, then renamed over the target (`os.replace`, atomic on POSIX).
  No name is predictable, so a planted `X.tmp` link is never opened; a target that is
  itself a link is refused rather than written through or silently replaced.
- `read_small`: opens without blocking (`O_NONBLOCK`: a FIFO opens at once instead of
  waiting for a writer), refuses anything but a regular file (checked on what was opened,
  so a link to `/dev/zero` is refused too), and reads at most `limit` bytes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path


class UnsafeFile(OSError):
    """A file that is a link, not a regular file, or too large: its message is one line."""


def read_small(path: str | os.PathLike[str], limit: int, *, follow: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, or `UnsafeFile` saying why not.
    `follow=False`: a final symbolic link is refused too."""
    p = Path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(p, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFile(errno.ELOOP, "is a symbolic link, not read") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(errno.EINVAL, f"is not a regular file ({_kind(st.st_mode)}), not read")
        if st.st_size > limit:
            raise UnsafeFile(errno.EFBIG, f"is {st.st_size:,} bytes, over the {limit:,} a config may hold")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
        if len(data) > limit:  # it grew while read
            raise UnsafeFile(errno.EFBIG, f"is over the {limit:,} bytes a config may hold")
        return data
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a file"


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace `path` with `data` atomically, following no link (see the module)."""
    p = Path(path)
    mode = None
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        pass
    else:
        if stat.S_ISLNK(st.st_mode):
            raise UnsafeFile(errno.ELOOP, f"{p} is a symbolic link: not written through it")
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(errno.EINVAL, f"{p} is not a regular file ({_kind(st.st_mode)}): not written")
        mode = stat.S_IMODE(st.st_mode)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if mode is None:  # a new file: what the umask gives a file anyone creates
                mode = 0o666 & ~_umask()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    """The process's umask, read without changing it (`os.umask` sets it: not thread-safe)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022
