"""A folder inside a source that its reader may not open (another user's, mode 700; a
container's volume): a sync said nothing and flagged every fact of its notes deleted. Now
it names the folder and keeps what it gave before as it was.

Run as the user it concerns: a process that may not bypass file modes (as root, one with
CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped by setpriv, which CI has; elsewhere the
test's own user)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.cli_run import run

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
DROP = "-dac_override,-dac_read_search"

pytestmark = pytest.mark.skipif(
    ROOT and shutil.which("setpriv") is None, reason="as root, needs setpriv to give up reading every file"
)


def as_a_user(*args: object) -> subprocess.CompletedProcess:
    """`synapse-tui ARGS` in a process that file modes apply to."""
    command = [sys.executable, "-m", "synapse_tui", *map(str, args)]
    if ROOT:
        command = ["setpriv", f"--bounding-set={DROP}", f"--inh-caps={DROP}", *command]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def alive(db) -> set[str]:
    lines = run("export", db).output.splitlines()
    return {f["text"] for f in map(json.loads, lines) if not f.get("deleted")}


@pytest.mark.parametrize(
    ("system", "closed", "text"),
    [
        ("markdown", "team", "Deploys need two approvals"),
        ("claude-code", "api", "Run the API tests against a real database"),
    ],
)
def test_a_folder_that_cannot_be_opened_is_named_and_its_facts_are_kept(tmp_path, system, closed, text):
    project = tmp_path / "project"
    (project / "team").mkdir(parents=True)
    (project / "api").mkdir()
    (project / "CLAUDE.md").write_text("- Use ruff for linting\n")
    (project / "team" / "deploys.md").write_text(f"- {text}\n" if closed == "team" else "- Ship on green\n")
    (project / "api" / "CLAUDE.md").write_text(f"- {text}\n" if closed == "api" else "- Keep handlers thin\n")
    db = tmp_path / "memory.db"
    where = ["--project", project] if system == "claude-code" else [project]
    run("import", "--from", system, *where, "--db", db)
    assert text in alive(db)
    (project / closed).chmod(0)
    try:
        done = as_a_user("import", "--from", system, *where, "--db", db)
    finally:
        (project / closed).chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert "0 newly deleted" in done.stdout, done.stdout
    assert f"left out: {closed}: cannot be listed (Permission denied)" in done.stderr, done.stderr
    assert text in alive(db)
