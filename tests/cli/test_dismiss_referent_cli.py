"""`suggest` and `dismiss` as a newcomer meets them with both kinds standing (SPEC 13): the
help names how to accept and dismiss a referent too; a dismissal asked of the wrong kind says
which kind stands and the exact command; a path copied from the fact as written (`./`, a line
suffix, punctuation) dismisses the referent `suggest` names. A real SQLite store, a real git
repository built in tmp (tests/core/referent_repo.py)."""

from __future__ import annotations

import shlex
import shutil

import pytest

from tests.cli_run import refused, run
from tests.core.referent_repo import FACTS, NOTES, build
from tests.helpers import NOW, json_lines, write_jsonl

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

# a replaced pair (c1 by c2), beside the referent the git notes name
PAIR = [
    {
        "id": "c1",
        "text": "the API rate limit is 600 requests per minute",
        "created_at": "2025-01-01T00:00:00Z",
        "note": "api",
    },
    {
        "id": "c2",
        "text": "the API rate limit is now 900 requests per minute",
        "created_at": "2025-04-01T00:00:00Z",
        "note": "api",
    },
]


def _both(tmp_path) -> tuple[str, dict]:
    """A store with the repository recorded (git notes naming a moved path) and a replaced pair."""
    repo = build(tmp_path / "repo", NOTES)
    db = str(tmp_path / "s.db")
    run("import", "--from", "git-notes", repo / "notes", "--db", db)
    run("import", write_jsonl(tmp_path / "pair.jsonl", PAIR), "--db", db)
    found = {s["kind"]: s for s in json_lines(run("suggest", db, "--json").stdout)}
    assert set(found) == {"replaced", "referent"} and found["replaced"]["fact"] == "c1"
    return db, found["referent"]


def _hinted(error: str) -> list[str]:
    """The command a refusal names, split as a shell would, DB left for the caller."""
    return shlex.split(error.split(": synapse-tui ")[-1].removesuffix(")"))


def test_suggest_help_names_how_to_accept_and_dismiss_each_kind():
    shown = run("suggest", "--help").stdout
    assert "synapse-tui supersede DB OLD NEW" in shown
    assert "synapse-tui dismiss DB OLD NEW" in shown
    assert "synapse-tui contradict DB ID --referent PATH" in shown
    assert "synapse-tui dismiss DB ID PATH --kind referent" in shown


def test_dismissing_the_replaced_kind_of_a_referent_names_the_referent_command(tmp_path):
    db, referent = _both(tmp_path)
    fid, path = referent["fact"], referent["referent"]
    error = refused("dismiss", db, fid)
    assert f"no standing replaced suggestion about '{fid}'" in error
    said = f"it has a referent one: synapse-tui dismiss DB {shlex.quote(fid)} {path} --kind referent)"
    assert error.endswith(said)
    words = _hinted(error)
    assert words == ["dismiss", "DB", fid, path, "--kind", "referent"]
    run(words[0], db, *words[2:])  # the command as said, DB filled in: it dismisses it
    assert [s["kind"] for s in json_lines(run("suggest", db, "--json").stdout)] == ["replaced"]


def test_dismissing_the_referent_kind_of_a_replaced_fact_names_the_replaced_command(tmp_path):
    db, _ = _both(tmp_path)
    error = refused("dismiss", db, "c1", "--kind", "referent")
    assert "no standing referent suggestion about 'c1'" in error
    assert "it has a replaced one: synapse-tui dismiss DB c1 c2)" in error
    run("dismiss", db, *_hinted(error)[2:], "--now", NOW)
    assert [s["kind"] for s in json_lines(run("suggest", db, "--json").stdout)] == ["referent"]


@pytest.mark.parametrize(
    "typed",
    [
        "./src/auth/login.py",
        "src/auth/login.py:12",
        "./src/auth/login.py:12-40",
        "src/auth/login.py#L12",
        "src/auth/login.py.",
        "`src/auth/login.py`,",
    ],
)
def test_a_path_copied_as_the_fact_writes_it_dismisses_the_referent(tmp_path, typed):
    db, referent = _both(tmp_path)
    said = run("dismiss", db, referent["fact"], typed, "--kind", "referent").stdout
    assert said.strip() == f"dismissed 1 suggestion: {referent['fact']} referent src/auth/login.py"
    assert [s["kind"] for s in json_lines(run("suggest", db, "--json").stdout)] == ["replaced"]
    again = refused("dismiss", db, referent["fact"], "src/auth/login.py", "--kind", "referent")
    assert "already dismissed" in again
    run("undo", db)
    assert referent in json_lines(run("suggest", db, "--json").stdout)


def test_a_token_that_names_no_path_is_refused_and_nothing_changes(tmp_path):
    db, referent = _both(tmp_path)
    before = run("suggest", db, "--json").stdout
    error = refused("dismiss", db, referent["fact"], "src/*.py", "--kind", "referent")
    assert "src/*.py: not a repository path" in error
    assert "no fact with id 'zz'" in refused("dismiss", db, "zz", "src/*.py", "--kind", "referent")
    assert run("suggest", db, "--json").stdout == before
    assert json_lines(run("export", db, "--audit").stdout) == []


def test_without_a_recorded_repository_it_says_how_to_name_the_path(tmp_path):
    repo = build(tmp_path / "repo")
    db = str(tmp_path / "s.db")
    run("import", write_jsonl(tmp_path / "f.jsonl", FACTS), "--db", db)  # no repository recorded
    error = refused("dismiss", db, "f2", "--kind", "referent")
    assert "this store records no repository" in error
    assert "name the path: synapse-tui dismiss DB f2 PATH --kind referent" in error
    run("dismiss", db, "f2", "./src/util.py:12", "--kind", "referent")  # as f2 writes it, give or take
    shown = json_lines(run("suggest", db, "--kind", "referent", "--repo", repo, "--json").stdout)
    assert [s["fact"] for s in shown] == ["f1", "f3", "f6"]
