"""What git knows about a folder of Markdown: who wrote each line, and when.

Read through the `git` command, never by parsing `.git`: its porcelain formats are the
stable interface. The source is only read: `GIT_OPTIONAL_LOCKS=0` keeps `git status` from
refreshing the index, and a repository's own configuration cannot run anything here
(no fsmonitor hook, no textconv filter, no pager).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_ENV = {"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.quotepath=false", "--no-pager")
_ZERO = "0" * 40


@dataclass(frozen=True)
class Commit:
    sha: str
    author: str  # `Name <email>`
    email: str
    at: float  # epoch seconds: the author's time, the instant the text was written


@cache
def _git() -> str | None:
    return shutil.which("git")


def _run(root: Path, *args: str) -> str | None:
    git = _git()
    if git is None:
        return None
    try:
        out = subprocess.run(
            [git, *_SAFE, "-C", str(root), *args],
            capture_output=True,
            env={**os.environ, **_ENV},
            check=False,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.decode("utf-8", "replace") if out.returncode == 0 else None


def work_tree(folder: Path) -> Path | None:
    """The top of the git work tree holding `folder`, or None (no git, not a repository, or
    one git refuses to read, such as another user's)."""
    out = _run(folder, "rev-parse", "--show-toplevel")
    return Path(out.strip()) if out and out.strip() else None


def _log(root: Path, folder: Path, *order: str) -> Iterator[tuple[Commit, list[str]]]:
    """Each commit touching `folder`, newest first unless `order` says otherwise, with the
    paths (relative to `root`, POSIX) it changed; one `git log` for the whole folder."""
    out = _run(
        root, "log", *order, "--no-renames", "--format=%x01%H%x00%an%x00%ae%x00%at", "--name-only", "-z", "--",
        str(folder),
    )  # fmt: skip
    for block in (out or "").split("\x01")[1:]:
        head, _, names = block.partition("\n")
        sha, name, email, at = head.split("\x00")[:4]
        paths = [p.strip("\n") for p in names.strip("\n\x00").split("\x00") if p]
        yield Commit(sha, f"{name} <{email}>", email, float(at)), paths


def last_commits(root: Path, folder: Path) -> dict[str, Commit]:
    """For each file below `folder` (path relative to `root`, POSIX), the last commit that
    changed it."""
    found: dict[str, Commit] = {}
    for commit, paths in _log(root, folder):
        for path in paths:
            found.setdefault(path, commit)
    return found


def changed(root: Path, folder: Path) -> set[str]:
    """Files below `folder` whose text differs from the last commit (or never committed)."""
    out = _run(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", str(folder))
    if out is None:
        return set()
    paths, parts = set(), out.split("\x00")
    i = 0
    while i < len(parts):
        entry = parts[i]
        if len(entry) > 3:
            paths.add(entry[3:])
            if entry[0] in "RC":  # a rename names its origin next
                i += 1
        i += 1
    return paths


def blame(root: Path, path: str) -> list[Commit | None]:
    """The commit that wrote each line of the file as it is in the work tree, by line
    (index 0 is line 1); None for a line not committed yet."""
    out = _run(root, "blame", "--line-porcelain", "--no-textconv", "--", path)
    if out is None:
        return []
    lines: list[Commit | None] = []
    fields: dict[str, str] = {}
    sha = ""
    for row in out.split("\n"):
        if row.startswith("\t"):
            if sha == _ZERO:
                lines.append(None)
            else:
                email = fields.get("author-mail", "").strip("<>")
                author = f"{fields.get('author', '')} <{email}>"
                lines.append(Commit(sha, author, email, float(fields.get("author-time", 0))))
            fields, sha = {}, ""
        elif not sha:
            sha = row.split(" ", 1)[0]
        else:
            key, _, value = row.partition(" ")
            fields[key] = value
    return lines


def history(root: Path, folder: Path) -> dict[str, list[Commit]]:
    """Every Markdown file that ever was below `folder` (path relative to `root`), with the
    commits that changed it, oldest first (a rename is a removal and an addition)."""
    found: dict[str, list[Commit]] = {}
    for commit, paths in _log(root, folder, "--reverse"):
        for path in paths:
            if path.endswith(".md"):
                found.setdefault(path, []).append(commit)
    return found


def blobs(root: Path, specs: list[str]) -> list[str | None]:
    """The text of each `<commit>:<path>` (None where the file is absent at that commit),
    through one `git cat-file --batch`."""
    git = _git()
    if git is None or not specs:
        return [None] * len(specs)
    try:
        proc = subprocess.run(
            [git, *_SAFE, "-C", str(root), "cat-file", "--batch"],
            input="".join(f"{s}\n" for s in specs).encode(),
            capture_output=True,
            env={**os.environ, **_ENV},
            check=False,
            timeout=300,
        )
    except (OSError, subprocess.TimeoutExpired):
        return [None] * len(specs)
    data, pos, texts = proc.stdout, 0, []
    for _ in specs:
        end = data.index(b"\n", pos)
        header = data[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] != b"blob":
            texts.append(None)
            continue
        size = int(header[2])
        texts.append(data[pos : pos + size].decode("utf-8", "replace"))
        pos += size + 1
    return texts
