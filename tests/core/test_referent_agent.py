"""Broken referents where an agent and `sync` meet them (issue 40): MCP `show` and `search`
carry them, so an agent does not send a user to a file that is gone; after the repository
moves on, `sync` and the next question check against its new head."""

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


def _db(tmp_path):
    repo = build(tmp_path / "repo", NOTES)
    db = tmp_path / "m.db"
    run("import", "--from", "git-notes", repo / "notes", "--db", db)
    return repo, db


def test_show_and_search_carry_the_broken_referent(tmp_path):
    _, db = _db(tmp_path)
    recall = Recall(Store.open(db), Config(), Clock.from_option("2026-12-01T00:00:00Z"))
    rows = recall.search("auth flow", 10)["results"]
    (row,) = [r for r in rows if "src/auth/login.py" in r["text"]]
    assert "broken_referent" in row["flags"]
    assert row["suggestions"][0]["referent"] == "src/auth/login.py"
    assert "moved to src/login.py" in row["suggestions"][0]["why"]
    shown = recall.show(row["id"])
    assert shown["suggestions"] == row["suggestions"] and "broken_referent" in shown["flags"]
    (other,) = [r for r in recall.search("tests live", 10)["results"] if "tests/unit" in r["text"]]
    assert other["suggestions"] == [] and "broken_referent" not in other["flags"]
    recall.close()


def test_after_the_repository_moves_sync_and_the_next_check_see_it(tmp_path):
    repo, db = _db(tmp_path)
    before = {s["referent"] for s in json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)}
    assert before == {"src/auth/login.py"}
    git(repo, "rm", "-rq", "tests")
    git(repo, "commit", "-qm", "no more tests", when="2026-05-01T12:00:00Z")
    run("sync", db)
    after = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    assert {s["referent"] for s in after} == {"src/auth/login.py", "tests/unit"}
    assert [s["why"] for s in after if s["referent"] == "tests/unit"][0].endswith("on 2026-05-01")


def test_kept_suggestions_are_found_again_when_the_repository_moves(tmp_path, monkeypatch):
    from synapse_tui.core.review import suggestions

    monkeypatch.setattr(suggestions, "CACHE_MIN_FACTS", 0)  # keep them beside even this small store
    repo, db = _db(tmp_path)

    def gone() -> set[str]:
        with Store.open(db, readonly=True) as store:
            return {s.other for s in suggestions.standing(store).found if s.kind == "referent"}

    assert gone() == {"src/auth/login.py"}
    assert gone() == {"src/auth/login.py"}  # from the kept file
    git(repo, "rm", "-rq", "tests")
    git(repo, "commit", "-qm", "no more tests", when="2026-05-01T12:00:00Z")
    assert gone() == {"src/auth/login.py", "tests/unit"}


def test_a_claude_code_project_is_the_default_repository(tmp_path):
    from synapse_tui.core.review.referent import repository

    repo = build(tmp_path / "repo")
    db = tmp_path / "p.db"
    with Store.open(db, create=True) as store:
        assert repository(store, None) is None
        store.set_meta(
            "import.sources", [{"system": "claude-code", "source": None, "project": str(repo / "src")}]
        )
        found = repository(store, None)
        assert found is not None and found.top == repo.resolve()
