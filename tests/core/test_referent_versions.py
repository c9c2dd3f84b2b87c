"""A fact edited for another reason still names the path its earlier version named: the
path is a referent of the new version too. Found on a real project: after CLAUDE.md's
"sessions expire after 30 minutes" became "60 minutes", the `B` entry for the login path
the same line named vanished, though the path is gone all the same."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config
from synapse_tui.core.store.db import Store
from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.core.referent_repo import NOTES, build
from tests.helpers import json_lines

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _gone(db) -> dict[str, str]:
    """fact text -> the path gone, as `suggest --kind referent --json` lists them."""
    out = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    shown = {}
    for s in out:
        (fact,) = json_lines(run("show", db, s["fact"], "--json").stdout)
        shown[fact["text"]] = s["referent"]
    return shown


@pytest.mark.parametrize("committed", [False, True], ids=["in the work tree", "committed"])
def test_an_edit_that_keeps_the_path_keeps_the_referent(tmp_path, committed):
    repo = build(tmp_path / "repo", NOTES)
    db = tmp_path / "m.db"
    run("import", "--from", "git-notes", repo / "notes", "--db", db)
    assert _gone(db) == {"The auth flow is in `src/auth/login.py`": "src/auth/login.py"}
    note = repo / "notes" / "mem.md"
    note.write_text(note.read_text().replace("The auth flow is in", "The whole auth flow is in"))
    if committed:
        git(repo, "commit", "-qam", "reword", when="2026-05-01T12:00:00Z")
    run("sync", db)
    assert _gone(db) == {"The whole auth flow is in `src/auth/login.py`": "src/auth/login.py"}
    recall = Recall(Store.open(db), Config(), Clock.from_option("2026-12-01T00:00:00Z"))
    (row,) = [r for r in recall.search("auth flow", 10)["results"] if "whole" in r["text"]]
    assert [s["referent"] for s in row["suggestions"]] == ["src/auth/login.py"]
    recall.close()


def test_a_path_the_new_version_names_for_the_first_time_after_it_was_gone_is_none(tmp_path):
    """The rule is the earlier version's: a path gone before the edit, and named only by the
    edit, never existed when it was written: not a referent."""
    repo = build(tmp_path / "repo", NOTES)
    db = tmp_path / "m.db"
    run("import", "--from", "git-notes", repo / "notes", "--db", db)
    note = repo / "notes" / "mem.md"
    text = note.read_text().replace(
        "Tests live in `tests/unit/`", "Tests live in `tests/unit/` and src/util.py"
    )
    note.write_text(text)
    git(repo, "commit", "-qam", "util", when="2026-05-01T12:00:00Z")  # src/util.py was gone on 03-01
    run("sync", db)
    assert _gone(db) == {"The auth flow is in `src/auth/login.py`": "src/auth/login.py"}
