"""A small real git repository whose files move on, for the referent tests (issue 40)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.core.claude_code_files import git

FILES = {
    "src/auth/login.py": "def login():\n    return 'a long enough body for git to see a rename'\n",
    "src/util.py": "def helper():\n    return 1\n",
    "tests/unit/test_a.py": "def test_a():\n    assert True\n",
    "README.md": "# Shop\n",
    "docs/guide.md": "# Guide\n\nHow to run the shop, at some length so a move is a rename.\n",
    "docs/setup.md": "# Setup\n\nInstall it, then run it, at some length so a move is a rename.\n",
}


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


NOTES = {
    "notes/mem.md": "# Memory\n\n- The auth flow is in `src/auth/login.py`\n- Tests live in `tests/unit/`\n"
}


def build(root: Path, notes: dict[str, str] | None = None) -> Path:
    """c1 2026-01-01 the files; c2 2026-02-01 src/auth/login.py -> src/login.py; c3
    2026-03-01 src/util.py removed, docs/ -> manual/; c4 2026-04-01 new.py added."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write(root, {**FILES, **(notes or {})})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first", when="2026-01-01T12:00:00Z")
    git(root, "mv", "src/auth/login.py", "src/login.py")
    git(root, "commit", "-qm", "move login", when="2026-02-01T12:00:00Z")
    git(root, "rm", "-q", "src/util.py")
    git(root, "mv", "docs", "manual")
    git(root, "commit", "-qm", "tidy", when="2026-03-01T12:00:00Z")
    write(root, {"new.py": "x = 1\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "new", when="2026-04-01T12:00:00Z")
    return root


FACTS = [
    {"id": "f1", "text": "The auth flow is in `src/auth/login.py:12`.", "created_at": "2026-01-15T00:00:00Z"},
    {
        "id": "f2",
        "text": "Helpers live in src/util.py, tests in `./tests/unit/`",
        "created_at": "2026-01-15T00:00:00Z",
    },
    {
        "id": "f3",
        "text": "See docs/guide.md, not `src/*.py` nor lib/never.py nor https://example.com/src/util.py",
        "created_at": "2026-01-15T00:00:00Z",
    },
    {"id": "f4", "text": "login is in src/login.py now", "created_at": "2026-03-15T00:00:00Z"},
    {"id": "f5", "text": "see src/util.py", "created_at": "2025-12-01T00:00:00Z"},
    {"id": "f6", "text": "the `docs/` folder holds the guide", "created_at": "2026-01-15T00:00:00Z"},
    {"id": "f7", "text": "new.py sets x; README.md says hello", "created_at": "2026-04-15T00:00:00Z"},
]


class Bait:
    """Programs that leave a marker when run (and pass their input through, so a filter
    that runs still gives git the text it expects), and the folder the markers land in."""

    def __init__(self, tmp: Path) -> None:
        self.marks = tmp / "marks"
        self.marks.mkdir()
        self.bin = tmp / "bin"
        self.bin.mkdir()

    def program(self, name: str) -> str:
        path = self.bin / name
        path.write_text(f'#!/bin/sh\ntouch "{self.marks / name}"\ncat\n')
        path.chmod(0o755)
        return str(path)

    def ran(self) -> list[str]:
        return sorted(p.name for p in self.marks.iterdir())


def config(repo: Path, *pairs: tuple[str, str], file: Path | None = None) -> None:
    for key, value in pairs:
        args = ["config", "--file", str(file)] if file else ["config"]
        subprocess.run(["git", "-C", str(repo), *args, key, value], check=True, capture_output=True)


def filters(bait: Bait, name: str) -> list[tuple[str, str]]:
    prog = bait.program(name)
    return [(f"filter.{name}.clean", prog), (f"filter.{name}.smudge", prog), (f"diff.{name}.textconv", prog)]


def sign(repo: Path) -> None:
    """Replace HEAD by the same commit carrying a signature header: git would run the
    signature program to check it (before any key is needed)."""
    raw = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "commit", "HEAD"], check=True, capture_output=True
    )
    head, _, message = raw.stdout.partition(b"\n\n")
    sig = b"gpgsig -----BEGIN PGP SIGNATURE-----\n AAAA\n -----END PGP SIGNATURE-----"
    new = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=head + b"\n" + sig + b"\n\n" + message,
        check=True,
        capture_output=True,
    ).stdout.strip()
    subprocess.run(["git", "-C", str(repo), "update-ref", "HEAD", new.decode()], check=True)
