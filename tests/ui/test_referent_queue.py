"""The "Gone from the repository?" queue as a person uses it (issue 40): B opens it on the
repository a git Markdown source recorded, the pane names the path, the commit that removed
it and the new path; y records the repository's contradiction (actor repo:SHA), ctrl+z
takes it back, d dismisses."""

from __future__ import annotations

import json
import shutil

import pytest

from synapse_tui.ui.screens.referent import ReferentScreen
from tests.cli_run import run
from tests.core.referent_repo import NOTES, build
from tests.helpers import write_jsonl
from tests.ui.helpers import SIZE, audit, imported, make_app, record_notices, said, screen_text, settle, shown

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


async def test_contradict_undo_and_dismiss_from_the_queue(tmp_path):
    repo = build(tmp_path / "repo", NOTES)
    db = imported(tmp_path, "memory", "--from", "git-notes", repo / "notes")
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("B")
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, ReferentScreen)
        seen = screen_text(app)
        assert "src/auth/login.py" in seen and "REMOVED BY" in seen and "2026-02-01" in seen
        assert "NEW PATH  src/login.py" in seen
        assert "tests/unit" not in seen.split("PATH")[0]  # a path still there is not listed
        await pilot.press("y")
        await settle(pilot)
        await settle(pilot)
        entries = audit(db)
        assert [e["action"] for e in entries][-1] == "contradict"
        assert entries[-1]["actor"].startswith("repo:") and len(entries[-1]["actor"]) == 45
        assert "nothing gone" in screen_text(app)
        await pilot.press("ctrl+z")
        await settle(pilot)
        await settle(pilot)
        assert "src/auth/login.py" in screen_text(app)
        await pilot.press("d")
        await settle(pilot)
        await settle(pilot)
        assert "nothing gone" in screen_text(app)
        assert json.loads(audit(db)[-1]["after"])["dismissed"] == {
            "kind": "referent",
            "other": "src/auth/login.py",
        }


async def test_the_header_names_the_queue_shown(tmp_path):
    """B's header says which queue this is: "Gone from the repository?", not the title of
    the Replaced? queue it is built on (seen on a real Markdown memory bank)."""
    repo = build(tmp_path / "repo", NOTES)
    db = imported(tmp_path, "memory", "--from", "git-notes", repo / "notes")
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("B")
        await settle(pilot)
        await settle(pilot)
        head = screen_text(app).splitlines()[0]
        assert "Gone from the repository?" in head and "Replaced?" not in head
        await pilot.press("escape", "R")
        await settle(pilot)
        await settle(pilot)
        seen = screen_text(app)
        assert "Replaced?" in seen.splitlines()[0]
        # R lists every kind: a gone path reads as gone, not as the fact's replacement
        assert "gone: src/auth/login.py" in seen and "→ src/auth/login.py" not in seen, seen
        assert "GONE  src/auth/login.py" in seen and "y contradicts" in seen, seen  # the pane


async def test_a_store_with_no_repository_is_told_as_a_warning_not_an_error(tmp_path):
    """B on a store that recorded no repository (the bundled sample's state) says so as a
    warning: nothing failed, there is only nothing to check against."""
    db = tmp_path / "memory.db"
    (tmp_path / "memory.synapse.toml").write_text("")
    run(
        "import",
        write_jsonl(
            tmp_path / "f.jsonl",
            [{"id": "f1", "text": "src/app.py holds the routes", "created_at": "2025-01-01T00:00:00Z"}],
        ),
        "--db",
        db,
    )
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notices = record_notices(app)
        await pilot.press("B")
        await settle(pilot)
        await settle(pilot)
    told = [(severity, text) for severity, text in notices if "referents cannot be checked" in text]
    assert [severity for severity, _ in told] == ["warning"], notices
    assert "no repository to check referents against" in told[0][1]
    # the browser takes no --repo: it says what a person can do from here instead
    assert "--repo" not in told[0][1], told[0][1]
    assert "import" in told[0][1] and "--project" in told[0][1]


THREE_GONE = {
    "notes/mem.md": "# Memory\n\n- The auth flow is in `src/auth/login.py`\n"
    "- Helpers live in `src/util.py`\n- How to run it: `docs/guide.md`\n"
}
GONE_PATHS = ("src/auth/login.py", "src/util.py", "docs/guide.md")


async def test_contradicting_three_marked_is_one_undo_step(tmp_path):
    # removed by two commits: the entries name two actors, and are still one action
    repo = build(tmp_path / "repo", THREE_GONE)
    db = imported(tmp_path, "memory", "--from", "git-notes", repo / "notes")
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("B")
        await settle(pilot)
        await settle(pilot)
        assert all(p in screen_text(app) for p in GONE_PATHS), screen_text(app)
        before = len(audit(db))
        await pilot.press("M", "Y")
        await settle(pilot)
        assert "3 contradictions from the repository, as one action" in said(app), said(app)
        await pilot.press("y")  # the confirmation
        await settle(pilot)
        await settle(pilot)
        entries = audit(db)[before:]
        assert [e["action"] for e in entries] == ["contradict"] * 3
        assert len({e["batch"] for e in entries}) == 1 and len({e["actor"] for e in entries}) == 2
        assert "nothing gone" in await shown(pilot, "nothing gone")
        await pilot.press("ctrl+z")  # one step: all three back
        await settle(pilot)
        await settle(pilot)
        text = await shown(pilot, *GONE_PATHS)
        assert all(p in text for p in GONE_PATHS), text
        await pilot.press("ctrl+y")
        await settle(pilot)
        await settle(pilot)
        assert "nothing gone" in await shown(pilot, "nothing gone")


TWO_GONE_ONE_FACT = {
    "notes/mem.md": "# Memory\n\n- Helpers live in `src/util.py`, the guide in `docs/guide.md`\n"
}


def fact_ids(db) -> list[str]:
    return [json.loads(line)["id"] for line in run("score", db, "--json").stdout.splitlines()]


async def test_one_fact_naming_two_gone_paths_is_contradicted_twice_and_undone_whole(tmp_path):
    # both paths removed by one commit: one actor, one fact, two contradictions in one batch
    repo = build(tmp_path / "repo", TWO_GONE_ONE_FACT)
    db = imported(tmp_path, "memory", "--from", "git-notes", repo / "notes")
    (fid,) = fact_ids(db)
    shown_before = json.loads(run("show", db, fid, "--json").stdout)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("B")
        await settle(pilot)
        await settle(pilot)
        assert all(p in screen_text(app) for p in ("src/util.py", "docs/guide.md")), screen_text(app)
        before = len(audit(db))
        await pilot.press("M", "Y")
        await settle(pilot)
        await pilot.press("y")  # the confirmation
        await settle(pilot)
        await settle(pilot)
        entries = audit(db)[before:]
        # each entry says what it changed: 0 -> 1, then 1 -> 2, as two keys one by one would
        steps = [
            (json.loads(e["before"])["contradictions"], json.loads(e["after"])["contradictions"])
            for e in entries
        ]
        assert steps == [(0, 1), (1, 2)], steps
        assert json.loads(run("show", db, fid, "--json").stdout)["contradictions"] == 2
        await pilot.press("ctrl+z")  # one step: both back
        await settle(pilot)
        await settle(pilot)
        assert "Not saved" not in said(app), said(app)
        after = json.loads(run("show", db, fid, "--json").stdout)
        assert after["contradictions"] == shown_before["contradictions"] == 0
