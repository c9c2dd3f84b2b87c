"""`suggest --kind referent` as a person uses it (SPEC 13, issue 40): on a real git
repository built here, the facts naming a path git says is gone, why, the same bytes each
time; the repository a git Markdown source recorded is the default; the flag, `show`,
dismiss and undo, and accepting it as the repository's contradiction."""

from __future__ import annotations

import json
import shutil

import pytest

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.review.referent import accept
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.referent_repo import FACTS, NOTES, build
from tests.helpers import NOW, json_lines, write_jsonl

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _store(tmp_path, new_store) -> str:
    db = new_store("s")
    run("import", write_jsonl(tmp_path / "f.jsonl", FACTS), "--db", db)
    return db


def test_suggest_lists_broken_referents_with_the_removing_commit(tmp_path, new_store):
    repo = build(tmp_path / "repo")
    db = _store(tmp_path, new_store)
    out = run("suggest", db, "--kind", "referent", "--repo", repo, "--json").stdout
    assert out == run("suggest", db, "--kind", "referent", "--repo", repo, "--json").stdout
    lines = json_lines(out)
    assert [(s["fact"], s["referent"]) for s in lines] == [
        ("f1", "src/auth/login.py"),
        ("f2", "src/util.py"),
        ("f3", "docs/guide.md"),
        ("f6", "docs"),
    ]
    assert list(lines[0]) == ["kind", "fact", "referent", "score", "why"]
    assert {s["kind"] for s in lines} == {"referent"} and {s["score"] for s in lines} == {1.0}
    assert lines[0]["why"].startswith("moved to src/login.py in ") and lines[0]["why"].endswith(
        "on 2026-02-01"
    )
    assert lines[1]["why"].startswith("src/util.py was removed in ") and lines[1]["why"].endswith(
        "on 2026-03-01"
    )
    older = json_lines(
        run("suggest", db, "--kind", "referent", "--repo", repo, "--rev", "HEAD~2", "--json").stdout
    )
    assert [(s["fact"], s["referent"]) for s in older] == [("f1", "src/auth/login.py")]


def test_without_a_repository_it_says_so(tmp_path, new_store):
    db = _store(tmp_path, new_store)
    assert "pass --repo DIR" in refused("suggest", db, "--kind", "referent", "--json")
    assert "pass --repo DIR" in refused("suggest", db, "--rev", "HEAD")  # the kind left out: asks for one too
    plain = tmp_path / "plain"
    plain.mkdir()
    assert "not a git repository" in refused("suggest", db, "--kind", "referent", "--repo", plain)
    repo = build(tmp_path / "repo")
    assert "no such commit" in refused("suggest", db, "--kind", "referent", "--repo", repo, "--rev", "nope")
    assert run("suggest", db, "--kind", "replaced", "--json").stdout == ""  # other kinds need no repository


def _recorded(tmp_path, new_store, system: str = "git-notes") -> tuple[str, object]:
    repo = build(tmp_path / "repo", NOTES)
    db = new_store("g")
    run("import", "--from", system, repo / "notes", "--db", db)
    return db, repo


# `--from markdown` reads a git work tree as git-notes does: its folder is the repository too
@pytest.mark.parametrize("system", ["git-notes", "markdown"])
def test_the_recorded_repository_is_the_default_and_flags_the_fact(tmp_path, new_store, system):
    db, _ = _recorded(tmp_path, new_store, system)
    (found,) = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    assert found["referent"] == "src/auth/login.py" and "moved to src/login.py" in found["why"]
    fid = found["fact"]
    rows = json_lines(run("score", db, "--where", "is:suggested", "--json", "--now", NOW).stdout)
    assert [r["id"] for r in rows] == [fid] and "broken_referent" in rows[0]["flags"]
    shown = json.loads(run("show", db, fid, "--json", "--now", NOW).stdout)
    assert "broken_referent" in shown["flags"]
    assert shown["suggestions"] == [
        {"kind": "referent", "referent": "src/auth/login.py", "why": found["why"]}
    ]


def test_dismiss_and_undo(tmp_path, new_store):
    db, _ = _recorded(tmp_path, new_store)
    (found,) = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    run("dismiss", db, found["fact"], "--kind", "referent")
    assert run("suggest", db, "--kind", "referent", "--json").stdout == ""
    run("undo", db)
    assert json_lines(run("suggest", db, "--kind", "referent", "--json").stdout) == [found]


def test_accepting_records_the_repositorys_contradiction(tmp_path, new_store):
    db, repo = _recorded(tmp_path, new_store)
    (found,) = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    before = json.loads(run("show", db, found["fact"], "--json", "--now", NOW).stdout)
    with Store.open(db) as store:
        accept(store, Clock.from_option(NOW), found["fact"], found["referent"])
    after = json.loads(run("show", db, found["fact"], "--json", "--now", NOW).stdout)
    assert after["contradictions"] == before["contradictions"] + 1
    assert run("suggest", db, "--kind", "referent", "--json").stdout == ""
    audit = json_lines(run("export", db, "--audit").stdout)
    removed_by = found["why"].split(" in ")[1].split(" ")[0]
    actors = {e["action"]: e["actor"] for e in audit}
    assert actors["contradict"].startswith("repo:" + removed_by) and len(actors["contradict"]) == 45
    run("undo", db)  # one step takes it all back
    assert (
        json.loads(run("show", db, found["fact"], "--json", "--now", NOW).stdout)["contradictions"]
        == before["contradictions"]
    )
    assert json_lines(run("suggest", db, "--kind", "referent", "--json").stdout) == [found]


def test_contradict_referent_accepts_it_from_the_command_line(tmp_path, new_store):
    db, repo = _recorded(tmp_path, new_store)
    (found,) = json_lines(run("suggest", db, "--kind", "referent", "--json").stdout)
    before = json.loads(run("show", db, found["fact"], "--json", "--now", NOW).stdout)
    said = run("contradict", db, found["fact"], "--referent", found["referent"], "--now", NOW).stdout
    assert "no longer holds src/auth/login.py" in said
    after = json.loads(run("show", db, found["fact"], "--json", "--now", NOW).stdout)
    assert after["contradictions"] == before["contradictions"] + 1
    assert "broken_referent" not in after["flags"]
    assert run("suggest", db, "--kind", "referent", "--json").stdout == ""
    actors = {e["action"]: e["actor"] for e in json_lines(run("export", db, "--audit").stdout)}
    assert actors["contradict"].startswith("repo:")
    assert "no standing referent suggestion" in refused(
        "contradict", db, found["fact"], "--referent", "nope.py"
    )
    run("undo", db)
    assert json_lines(run("suggest", db, "--kind", "referent", "--json").stdout) == [found]
