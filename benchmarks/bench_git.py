"""What reading git as data costs (issue 37). Run: python benchmarks/bench_git.py [--quick] [--write-results]

A notes repository (N notes, C commits each editing a few notes, then a few notes edited
and not committed) read by `git-notes` and by `basic-memory` (undated notes: their times
come from git), and a `~/.claude` in git (topic files and a MEMORY.md of bullets, which
takes blame) read by `claude-code`: each reader on this branch (plumbing, the work tree
hashed in Python) against the same reader on `main` (`git log`, `git status`, `git blame`,
its sources unpacked with `git archive`), best of 3, interleaved in the same run, each in
a new process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from results import Results  # noqa: E402

FIGURES = Results("bench_git.py")
READ = """
import sys, time
from pathlib import Path
from synapse_tui.core.ingest.adapters import basic_memory, claude_code, git_notes
reader = {"git-notes": git_notes.read, "basic-memory": basic_memory.read, "claude-code": claude_code.read}[sys.argv[1]]
t0 = time.perf_counter(); snap = reader(Path(sys.argv[2])); print(time.perf_counter() - t0, len(snap.facts))
"""


def git(root: Path, *args: str, stdin: bytes | None = None) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "agent@letta.com",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "agent@letta.com",
    }
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env, input=stdin)


def notes_repo(root: Path, notes: int, commits: int) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    for i in range(notes):
        path = root / f"topic-{i % 20}" / f"note-{i}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(f"- [fact] Note {i} holds fact {k}\n" for k in range(8)))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "notes")
    for c in range(commits):
        for i in range(c % notes, notes, max(1, notes // 3)):  # three notes a commit
            path = root / f"topic-{i % 20}" / f"note-{i}.md"
            with path.open("a") as f:
                f.write(f"- [fact] Note {i} learnt {c}\n")
        git(root, "commit", "-q", "-am", f"edit {c}")
    for i in range(0, notes, 10):
        with (root / f"topic-{i % 20}" / f"note-{i}.md").open("a") as f:
            f.write("- [fact] Not committed yet\n")
    return root


def claude_repo(root: Path, topics: int, commits: int) -> Path:
    memory = root / "projects" / "-home-ada-shop" / "memory"
    memory.mkdir(parents=True)
    git(root, "init", "-q")
    for i in range(topics):
        (memory / f"topic_{i}.md").write_text(
            f"---\nname: Topic {i}\ndescription: about {i}\ntype: project\n---\nTopic {i} body.\n"
        )
    (memory / "MEMORY.md").write_text("# Memory\n" + "".join(f"- Bullet {k}\n" for k in range(50)))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memory")
    for c in range(commits):
        with (memory / "MEMORY.md").open("a") as f:
            f.write(f"- Learnt {c}\n")
        (memory / f"topic_{c % topics}.md").write_text(
            f"---\nname: Topic {c}\ndescription: about {c}\ntype: project\n---\nTopic body {c}.\n"
        )
        git(root, "commit", "-q", "-am", f"edit {c}")
    return root


def main() -> None:
    quick = "--quick" in sys.argv
    notes, commits = (60, 40) if quick else (300, 200)
    repo_root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = folder / "main-src"
        base.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(repo_root), "archive", "main", "synapse_tui"], capture_output=True
        )
        if archive.returncode != 0:
            print("skipped: no git branch 'main' here")
            return
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        sources = {
            "git-notes": notes_repo(folder / "notes", notes, commits),
            "claude-code": claude_repo(folder / "claude", notes, commits),
        }
        sources["basic-memory"] = sources["git-notes"]
        for system, source in sources.items():
            times: dict[str, list[float]] = {"main": [], "this branch": []}
            counts: dict[str, int] = {}
            for _ in range(3):
                for name, path in (("main", base), ("this branch", repo_root)):
                    out = subprocess.run(
                        [sys.executable, "-c", READ, system, str(source)],
                        env=dict(os.environ, PYTHONPATH=str(path)),
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                    seconds, facts = out.stdout.split()
                    times[name].append(float(seconds))
                    counts[name] = int(facts)
            main_s, here_s = min(times["main"]), min(times["this branch"])
            figure = f"{system} read, {notes} notes, {commits} commits ({counts['this branch']:,} facts)"
            print(
                f"{figure}: main {main_s:.2f} s ({counts['main']:,} facts), this branch {here_s:.2f} s "
                f"(ratio {here_s / main_s:.2f})"
            )
            FIGURES.add(figure, here_s, baseline="main, interleaved", against=main_s)
    if "--write-results" in sys.argv:
        FIGURES.save()


if __name__ == "__main__":
    main()
