"""Who wrote each line of a memory file (claude-code dates a fact by it): `gitlog.blame`
matched the work tree's lines to the committed ones with difflib's autojunk off, which on
a generated file of 19,000 lines, mostly blank or one of a few headings, took seconds to
minutes for one uncommitted line (benchmarks/bench_linediff.py). The lines so matched are
the same as before on ordinary files, small or large."""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path

from synapse_tui.core.ingest.adapters import gitlog

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_linediff import licenses  # noqa: E402


def git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "Ann",
        "GIT_AUTHOR_EMAIL": "ann@example.org",
        "GIT_COMMITTER_NAME": "Ann",
        "GIT_COMMITTER_EMAIL": "ann@example.org",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def commit(repo: Path, lines: list[str], message: str) -> str:
    (repo / "CLAUDE.md").write_text("\n".join(lines) + "\n")
    git(repo, "add", "CLAUDE.md")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def blamed(repo: Path, now: list[str]) -> list[str | None]:
    (repo / "CLAUDE.md").write_text("\n".join(now) + "\n")
    folder = gitlog.open_folder(repo)
    assert folder is not None
    return [c.sha if c else None for c in folder.blame("CLAUDE.md")]


def as_before(repo: Path, second: list[str], now: list[str]) -> list[str | None]:
    """What blame said before: git's blame of the last commit, its lines matched to the work
    tree's by difflib with autojunk off."""
    folder = gitlog.open_folder(repo)
    assert folder is not None
    by_line = folder.repo.blame(git(repo, "rev-parse", "HEAD"), "CLAUDE.md")
    out: list[str | None] = [None] * (len(now) + 1)
    matcher = difflib.SequenceMatcher(None, [*second, ""], [*now, ""], autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            if a + k < len(by_line):
                out[b + k] = by_line[a + k]
    return out


def ordinary(n: int) -> list[str]:
    """A person's notes: headings, bullets, a blank line between sections."""
    out = []
    for s in range(n):
        out += [
            f"## Section {s}",
            "",
            f"- Run the tests of part {s} before a push",
            f"- Part {s} uses ruff",
            "",
        ]
    return out


def test_a_generated_file_of_19000_lines_is_blamed_line_by_line(tmp_path):
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    first = licenses(range(1900), set())
    second = list(first)
    second[4000] = "- pkg-570 is MIT since 2.0"
    shas = [commit(repo, first, "licenses"), commit(repo, second, "one fixed")]
    now = list(second)
    now.insert(15000, "- an uncommitted note")
    assert len(now) > 19000
    got = blamed(repo, now)
    want: list[str | None] = [shas[0]] * len(now) + [None]  # the file's last newline ends no line
    want[4000], want[15000] = shas[1], None
    assert got == want


def test_ordinary_edits_are_blamed_as_before(tmp_path):
    for n in (12, 900):  # a short note; one long enough to take the faster match
        repo = tmp_path / f"project{n}"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        first = ordinary(n)
        second = [line.replace("ruff", "ruff and mypy") if "part 3 " in line else line for line in first]
        second[n // 2 * 5 : n // 2 * 5] = ["## Deploys", "", "- Deploys need two approvals", ""]
        commit(repo, first, "notes")
        commit(repo, second, "more notes")
        now = [line for line in second if "part 7 " not in line]
        now.insert(n * 3, "- Pin the Python version")
        now[1] = "Read the README first."
        assert blamed(repo, now) == as_before(repo, second, now)
        assert len(now) + len(second) > gitlog.BLAME_EXACT or n == 12
