"""The line a fact's provenance names (`x-<system>-line`, what `show` and the path view
point at) is where its text stands now: lines added above a bullet and committed moved it,
and import and sync kept the line of the commit that first wrote it."""

from __future__ import annotations

import shutil

import pytest

from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.helpers import json_lines

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

NOTE = "# Deploys\n\n- Deploys run on Fridays.\n"
ABOVE = "# Deploys\n\n- The cache is Redis 7.\n- Builds take ten minutes.\n- Deploys run on Fridays.\n"
MORE = "# Deploys\n\nRead this first.\n\n- The cache is Redis 7.\n- Builds take ten minutes.\n- Deploys run on Fridays.\n"

# (system, the folder read, the file written there, extra import arguments)
READERS = [
    ("markdown", "notes", "deploys.md", ()),
    ("codex", "memories", "MEMORY.md", ()),
    ("gemini-cli", ".gemini", "GEMINI.md", ()),
    ("openclaw", "workspace", "MEMORY.md", ()),
    ("cursor", "app", ".cursor/rules/deploys.md", ()),
    ("claude-code", "app", "CLAUDE.md", ("project",)),
]


def fridays(db) -> tuple[str, int]:
    """The Fridays bullet's id and the line its provenance names."""
    for r in json_lines(run("score", db, "--json").stdout):
        (info,) = json_lines(run("show", db, r["id"], "--json").stdout)
        if "Fridays" in info["text"]:
            (line,) = [v for k, v in info["provenance"].items() if k.endswith("-line") and "block" not in k]
            return r["id"], line
    raise AssertionError("no Fridays bullet")


def import_args(system, root, how, db):
    if "project" in how:  # Claude Code: a project's CLAUDE.md
        return ("import", "--from", system, "--project", root, "--db", db)
    return ("import", "--from", system, root, "--db", db)


@pytest.mark.parametrize(("system", "folder", "name", "how"), READERS, ids=[r[0] for r in READERS])
def test_lines_added_above_a_bullet_move_the_line_it_names(tmp_path, system, folder, name, how):
    root = tmp_path / folder
    (root / name).parent.mkdir(parents=True)
    (root / name).write_text(NOTE)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first", when="2026-03-01T10:00:00+00:00")
    db = tmp_path / "m.db"
    run(*import_args(system, root, how, db))
    first, line = fridays(db)
    assert line == 3

    (root / name).write_text(ABOVE)
    git(root, "commit", "-q", "-am", "more", when="2026-03-02T10:00:00+00:00")
    run("sync", db)
    fid, line = fridays(db)
    assert fid == first  # the same fact, unchanged
    assert line == 5  # before: 3, the line of the commit that wrote it
    fresh = tmp_path / "fresh.db"
    run(*import_args(system, root, how, fresh))
    assert fridays(fresh) == (first, 5)  # before: 3 here too

    (root / name).write_text(MORE)  # not committed: the work tree is where it stands
    run("sync", db)
    assert fridays(db) == (first, 7)
    out = run("sync", db).stdout
    assert " 0 added, 0 newly deleted, 0 re-asserted" in out


def test_a_codex_blocks_own_line_follows_a_block_added_above(tmp_path):
    """Codex's earlier MEMORY.md shape: a block's header line (`x-codex-block-line`) moves
    with the block, as its bullets' lines do."""
    root = tmp_path / "memories"
    root.mkdir()
    block = "---\ndescription: Deploys\nkeywords: deploy\n---\n- Deploys run on Fridays.\n"
    (root / "MEMORY.md").write_text(block)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first", when="2026-03-01T10:00:00+00:00")
    db = tmp_path / "m.db"
    run("import", "--from", "codex", root, "--db", db)
    fid, line = fridays(db)
    assert line == 5 and shown(db, fid)["x-codex-block-line"] == 1
    other = "---\ndescription: Cache\nkeywords: cache\n---\n- The cache is Redis 7.\n"
    (root / "MEMORY.md").write_text(other + block)
    git(root, "commit", "-q", "-am", "cache", when="2026-03-02T10:00:00+00:00")
    run("sync", db)
    assert fridays(db) == (fid, 10)
    assert shown(db, fid)["x-codex-block-line"] == 6  # before: 1
    fresh = tmp_path / "fresh.db"
    run("import", "--from", "codex", root, "--db", fresh)
    assert shown(fresh, fid)["x-codex-block-line"] == 6


def shown(db, fid: str) -> dict:
    (info,) = json_lines(run("show", db, fid, "--json").stdout)
    return info["provenance"]
