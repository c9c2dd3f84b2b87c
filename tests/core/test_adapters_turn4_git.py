"""Turn 4's sources in a git work tree (`~/.codex/memories` is one: Codex commits its
memories): the history is replayed, and a repository that names programs (a filter and
textconv through attributes, fsmonitor, a hook) never gets one run by reading it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from synapse_tui.core.ingest.adapters import codex, cursor, gemini_cli, openclaw
from synapse_tui.core.store.db import Store
from tests.core import new_sources_files as files
from tests.core.claude_code_files import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def baited(repo: Path, marks: Path) -> None:
    """Commit `repo` as it is, then name a marker-writing program every way git could run one."""
    prog = repo.parent / "bait.sh"
    prog.write_text(f'#!/bin/sh\ntouch "{marks}/ran"\ncat\n')
    prog.chmod(0o755)
    git(repo, "init", "-q")
    (repo / ".gitattributes").write_text("* filter=bait diff=bait\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "memory", when="2026-02-01T10:00:00+00:00")
    for key in ("filter.bait.clean", "filter.bait.smudge", "diff.bait.textconv", "core.fsmonitor"):
        subprocess.run(["git", "-C", str(repo), "config", key, str(prog)], check=True)
    hooks = repo / ".git" / "hooks"
    for hook in ("post-checkout", "post-index-change", "reference-transaction"):
        (hooks / hook).write_text(f'#!/bin/sh\ntouch "{marks}/ran"\n')
        (hooks / hook).chmod(0o755)


def codex_folder(root: Path):
    files.write(root, "MEMORY.md", files.CODEX_MEMORY_TASKS)
    return lambda: codex.read(root)


def gemini_folder(root: Path):
    files.write(root, "GEMINI.md", files.GEMINI_GLOBAL)
    return lambda: gemini_cli.read(root)


def openclaw_folder(root: Path):
    files.write(root, "MEMORY.md", files.OPENCLAW_MEMORY)
    files.write(root, "memory/2026-04-02.md", files.OPENCLAW_DAY)
    return lambda: openclaw.read(root)


def cursor_folder(root: Path):
    files.write(root, ".cursor/rules/ts.mdc", files.CURSOR_RULE)
    return lambda: cursor.read(None, project=root)


SOURCES = {
    "codex": codex_folder,
    "gemini-cli": gemini_folder,
    "openclaw": openclaw_folder,
    "cursor": cursor_folder,
}


@pytest.mark.parametrize("system", sorted(SOURCES))
def test_a_baited_repository_is_replayed_and_runs_nothing(tmp_path, system):
    marks = tmp_path / "marks"
    marks.mkdir()
    root = tmp_path / "memory"
    read = SOURCES[system](root)
    baited(root, marks)
    snap = read()
    assert snap.facts
    key = f"x-{system}-time"
    # the format's own time where it has one, else the commit that wrote it
    assert {f.provenance[key] for f in snap.facts} <= {
        "git commit",
        "updated_at of the cited rollouts",
        "date in the file name",
    }
    assert all(f.provenance.get(f"x-{system}-commit") for f in snap.facts)
    assert not list(marks.iterdir())  # nothing the repository names ran


def test_a_second_sync_replays_only_the_files_that_changed(tmp_path, new_store):
    root = tmp_path / "workspace"
    files.write(root, "MEMORY.md", files.OPENCLAW_MEMORY)
    files.write(root, "memory/2026-04-02.md", files.OPENCLAW_DAY)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "memory")
    with Store.open(new_store("git"), create=True) as store:
        _, first = files.resync(store, openclaw, root)
        assert first.added == 3
        snap, again = files.resync(store, openclaw, root)
        assert snap.facts == [] and len(snap.kept) == 3  # nothing replayed again
        assert (again.added, again.unchanged) == (0, 3)
        day = root / "memory/2026-04-02.md"
        day.write_text(day.read_text() + "- Staging got a new certificate.\n")
        git(root, "commit", "-qam", "cert", when="2026-04-03T09:00:00+00:00")
        snap, third = files.resync(store, openclaw, root)
        assert third.added == 1 and len(snap.kept) == 1  # MEMORY.md kept, the log replayed
        cert = next(f for f in snap.facts if "certificate" in f.text)
        # the log's name dates it (the format's own time first); the commit that wrote it is named
        assert cert.created_at == "2026-04-02T00:00:00Z" and cert.provenance["x-openclaw-commit"]
