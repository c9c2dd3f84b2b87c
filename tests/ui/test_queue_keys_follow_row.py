"""The suggestion queues say what a key does to the row under the cursor: on a gone path's
row of the Replaced? queue `y` records a contradiction, and the Footer and help say so (not
"accept", the newer fact superseding the older, which is what it says on a replaced pair's
row); the Gone? queue on a store with no repository says it cannot check once a visit, not
again at every undo and redo. Pilot tests on real stores (a real git repository)."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.ui.screens.help import HelpScreen
from synapse_tui.ui.screens.replaced import ReplacedScreen
from tests.cli_run import run
from tests.core.referent_repo import NOTES, build
from tests.helpers import write_jsonl
from tests.ui.helpers import SIZE, audit, footer_line, imported, make_app, record_notices, screen_text, settle

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

PAIR = [
    {"id": "p1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "p2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
]
SUPERSEDES = "Accept: the newer fact supersedes the older"
CONTRADICTS = "Contradict: the repository says the path is gone"


def _mixed(tmp_path):
    """A replaced pair (listed first) and a fact naming a path the repository removed."""
    repo = build(tmp_path / "repo", NOTES)
    db = imported(tmp_path, "memory", "--from", "git-notes", repo / "notes")
    run("import", write_jsonl(tmp_path / "pair.jsonl", PAIR), "--db", db)
    return db


def _help(app) -> dict[str, list[str]]:
    """What help lists: key -> what each of its rows says."""
    rows: dict[str, list[str]] = {}
    for keys, does in app.screen.rows:
        rows.setdefault(keys, []).append(does)
    return rows


async def _opened(pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)
    await settle(pilot)


@needs_git
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_y_on_a_gone_row_is_named_contra_in_the_footer_and_help(tmp_path, size):
    """A newcomer on a `gone:` row of R read `y accept` in the Footer and "Accept: the newer
    fact supersedes the older" in help, while y recorded a contradiction (the pane's last
    line said so). The Footer and help now name what y does to the row under the cursor."""
    db = _mixed(tmp_path)
    app = make_app(db)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await _opened(pilot, "R")
        assert isinstance(app.screen, ReplacedScreen)
        seen = screen_text(app)
        assert "→ p2" in seen and "gone: src/auth/login.py" in seen, seen
        # the pair's row: y accepts, and help says the other meaning and where it applies
        footer = await footer_line(pilot, "y accept", "? help", absent=("y contra",))
        assert "y accept" in footer and "y contra" not in footer, footer
        await _opened(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        rows = _help(app)
        assert rows["y"][0].startswith(SUPERSEDES), rows["y"]
        assert any(r.startswith(CONTRADICTS) and "on a gone path's row" in r for r in rows["y"]), rows["y"]
        await _opened(pilot, "escape", "down")
        # the gone path's row: y contradicts, and the Footer and help say it
        assert "y contradicts" in screen_text(app)
        footer = await footer_line(pilot, "y contra", "? help", absent=("y accept",))
        assert "y contra" in footer and "y accept" not in footer, footer
        assert "? help" in footer, footer  # still fits, help in view (at 80 columns, last)
        assert size[0] > 80 or footer.rstrip().endswith("? help"), footer
        await _opened(pilot, "question_mark")
        rows = _help(app)
        assert rows["y"][0].startswith(CONTRADICTS), rows["y"]
        assert any(r.startswith(SUPERSEDES) and "on a replaced fact's row" in r for r in rows["y"]), rows["y"]
        await _opened(pilot, "escape")
        before = len(audit(db))
        await _opened(pilot, "y")  # what the Footer says: a contradiction
        assert [e["action"] for e in audit(db)[before:]] == ["contradict"], audit(db)[before:]
    app.store.close()


@needs_git
async def test_the_footer_follows_when_a_gone_row_comes_under_the_cursor(tmp_path):
    """Accepting the pair leaves the gone path's row under the cursor (the same index, no
    cursor move): the Footer says `y contra`; undone, the pair is back and it says accept."""
    db = _mixed(tmp_path)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _opened(pilot, "R")
        assert "y accept" in await footer_line(pilot, "y accept", absent=("y contra",))
        await _opened(pilot, "y")
        assert [e["action"] for e in audit(db)][-1] == "supersede"
        assert "→ p2" not in screen_text(app)
        footer = await footer_line(pilot, "y contra", absent=("y accept",))
        assert "y contra" in footer and "y accept" not in footer, footer
        await _opened(pilot, "ctrl+z")
        assert "→ p2" in screen_text(app)
        await _opened(pilot, "home")
        footer = await footer_line(pilot, "y accept", absent=("y contra",))
        assert "y accept" in footer and "y contra" not in footer, footer
    app.store.close()


async def test_no_repository_is_said_once_a_visit_not_at_every_undo(tmp_path):
    """A newcomer undid and redid a triage with the Gone? queue open on a store with no
    repository: each ctrl+z and ctrl+y said "referents cannot be checked" again."""
    db = tmp_path / "memory.db"
    (tmp_path / "memory.synapse.toml").write_text("")
    facts = [{"id": "f1", "text": "src/app.py holds the routes", "created_at": "2025-01-01T00:00:00Z"}]
    run("import", write_jsonl(tmp_path / "f.jsonl", facts), "--db", db)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")  # a triage in the list, for ctrl+z to undo
        await settle(pilot)
        notices = record_notices(app)
        await pilot.press("B")
        await settle(pilot)
        await settle(pilot)
        for key in ("ctrl+z", "ctrl+y", "ctrl+z"):
            await pilot.press(key)
            await settle(pilot)
            await settle(pilot)
        told = [text for _, text in notices if "referents cannot be checked" in text]
        assert len(told) == 1, notices
        assert any("undid" in text.lower() or "undo" in text.lower() for _, text in notices), notices
        await pilot.press("escape", "B")  # a new visit: said again
        await settle(pilot)
        await settle(pilot)
        told = [text for _, text in notices if "referents cannot be checked" in text]
        assert len(told) == 2, notices
