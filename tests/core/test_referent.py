"""Referents (SPEC 13, issue 40) with real git on repositories built here: which tokens
name paths, which of them are gone at a revision, the commit that removed them and where
git says they moved; and a hostile repository whose programs never run."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.safegit import Repo
from synapse_tui.core.review.referent import Fact, candidates, check, normalize
from tests.core.claude_code_files import git
from tests.core.referent_repo import FACTS, Bait, build, config, filters, sign, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.mark.parametrize(
    ("token", "path"),
    [
        ("`src/auth/login.py:12`", "src/auth/login.py"),
        ("./src/a.ts:12-40,", "src/a.ts"),
        ("(docs/guide.md).", "docs/guide.md"),
        ("src/a.py#L10", "src/a.py"),
        ("tests/unit/", "tests/unit"),
        ("package.json", "package.json"),
        ("**src/x.py**", "src/x.py"),
        ("src/*.py", None),
        ("**/*.ts", None),
        ("https://example.com/a/b.py", None),
        ("<name>/file.md", None),
        ("../outside.py", None),
        ("Makefile", None),
        ("hello", None),
    ],
)
def test_a_token_names_a_path_or_none(token, path):
    assert normalize(token) == path


def test_candidates_come_from_backticks_links_and_bare_words():
    text = "See [the guide](docs/guide.md) and `src/app.py`; also lib/x.js, not *.py."
    assert set(candidates(text)) == {"docs/guide.md", "src/app.py", "lib/x.js"}


def _facts() -> list[Fact]:
    return [Fact(f["id"], f["text"], parse_time(f["created_at"])) for f in FACTS]


def _found(repo: Repo, rev: str = "HEAD") -> dict[tuple[str, str], tuple[str | None, str]]:
    return {(b.fact, b.path): (b.new_path, b.why) for b in check(repo, _facts(), rev)}


def test_gone_referents_name_the_removing_commit_and_the_new_path(tmp_path):
    repo = Repo.find(build(tmp_path / "r"))
    assert repo is not None
    line = repo.first_parents()
    c2, c3 = line[2], line[1]
    found = _found(repo)
    assert set(found) == {
        ("f1", "src/auth/login.py"),
        ("f2", "src/util.py"),
        ("f3", "docs/guide.md"),
        ("f6", "docs"),
    }
    assert found[("f1", "src/auth/login.py")] == (
        "src/login.py",
        f"moved to src/login.py in {c2[:12]} on 2026-02-01",
    )
    assert found[("f2", "src/util.py")] == (None, f"src/util.py was removed in {c3[:12]} on 2026-03-01")
    assert found[("f3", "docs/guide.md")][0] == "manual/guide.md"
    assert found[("f6", "docs")][0] == "manual"  # a folder moves with its files


def test_only_paths_that_existed_then_and_are_absent_now(tmp_path):
    repo = Repo.find(build(tmp_path / "r"))
    paths = {p for _, p in _found(repo)}
    assert "lib/never.py" not in paths  # never existed: not a referent
    assert "tests/unit" not in paths and "src/login.py" not in paths  # still there
    assert not any(f == "f5" for f, _ in _found(repo))  # written before the first commit


def test_an_older_revision_is_checked_as_it_was(tmp_path):
    repo = Repo.find(build(tmp_path / "r"))
    assert set(_found(repo, "HEAD~2")) == {("f1", "src/auth/login.py")}  # util.py and docs/ still there


def test_a_rename_is_followed_to_the_path_that_exists(tmp_path):
    root = build(tmp_path / "r")
    (root / "app").mkdir()
    git(root, "mv", "src/login.py", "app/login.py")
    git(root, "commit", "-qm", "again", when="2026-05-01T12:00:00Z")
    found = _found(Repo.find(root))
    new, why = found[("f1", "src/auth/login.py")]
    assert new == "app/login.py"
    assert why.startswith("moved to src/login.py in ") and "then moved to app/login.py" in why


def test_a_merge_that_removes_a_path_is_named(tmp_path):
    root = build(tmp_path / "r")
    git(root, "checkout", "-q", "-b", "side")
    git(root, "rm", "-q", "README.md")
    git(root, "commit", "-qm", "drop readme", when="2026-04-05T12:00:00Z")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "side", "-m", "merge side", when="2026-04-10T12:00:00Z")
    repo = Repo.find(root)
    merge = repo.first_parents()[0]
    facts = [Fact("m", "README.md is the front page", parse_time("2026-04-02T00:00:00Z"))]
    (b,) = check(repo, facts)
    assert b.removed_by == merge and "2026-04-10" in b.why


def test_a_hostile_repository_runs_nothing(tmp_path):
    bait = Bait(tmp_path)
    root = build(tmp_path / "r")
    write(root, {".gitattributes": "*.py filter=evil diff=evil\n*.md filter=evil\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "attributes", when="2026-04-20T12:00:00Z")
    extra = bait.bin / "included.cfg"
    config(root, ("core.fsmonitor", bait.program("fsmonitor")), *filters(bait, "inc"), file=extra)
    config(
        root,
        *filters(bait, "evil"),
        ("include.path", str(extra)),
        ("log.showSignature", "true"),
        ("gpg.program", bait.program("gpg")),
        ("gpg.ssh.program", bait.program("gpg-ssh")),
        ("diff.external", bait.program("extdiff")),
    )
    sign(root)
    repo = Repo.find(root)
    assert set(_found(repo)) == {
        ("f1", "src/auth/login.py"),
        ("f2", "src/util.py"),
        ("f3", "docs/guide.md"),
        ("f6", "docs"),
    }
    assert bait.ran() == []


def test_no_commit_yet_and_a_folder_not_in_git(tmp_path):
    empty = tmp_path / "e"
    empty.mkdir()
    git(empty, "init", "-q")
    repo = Repo.find(empty)
    with pytest.raises(Exception, match="no such commit"):
        check(repo, _facts())


def test_a_commit_with_a_missing_object_loses_only_its_renames(tmp_path):
    root = build(tmp_path / "r")
    write(root, {"src/other.py": "something else entirely\n" * 3})
    git(root, "rm", "-q", "README.md")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "swap", when="2026-04-10T12:00:00Z")
    repo = Repo.find(root)
    readme = next(e.sha for e in repo.ls_tree("HEAD~1") if e.path == "README.md")
    (repo.git_dir / "objects" / readme[:2] / readme[2:]).unlink()  # a partial snapshot
    line = repo.first_parents()
    changes = repo.first_parent_changes(line, renames=True)
    assert [c.path for c in changes[line[0]]] == ["README.md", "src/other.py"]  # read without -M
    assert any(c.status == "R" for c in changes[line[2]])  # the others keep their renames
    assert any("an object is missing" in why for why in repo.left_out)


def test_answers_are_kept_between_processes_and_a_changed_text_is_checked_again(tmp_path):
    from synapse_tui.core.review import referent

    repo = Repo.find(build(tmp_path / "r"))
    first = referent.cached_check(repo, _facts())
    referent._CACHE.clear()  # as a new process starts
    assert referent.cached_check(Repo.find(repo.top), _facts()) == first
    assert list(referent.cache_root().glob("*.json"))
    edited = [Fact("f1", "login lives in src/util.py", parse_time("2026-01-15T00:00:00Z"))]
    assert [b.path for b in referent.cached_check(repo, edited)] == ["src/util.py"]
