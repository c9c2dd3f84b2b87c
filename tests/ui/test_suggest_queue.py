"""The "Replaced?" queue as a person uses it: R opens it, the pane marks what changed and
says why, y accepts (a supersede), d dismisses, ctrl+z takes either back."""

from __future__ import annotations

import json

from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from synapse_tui.ui.screens.replaced import ReplacedScreen, marked_texts
from tests.helpers import write_jsonl
from tests.ui.helpers import SIZE, audit, db_row, make_app, screen_text, settle

FACTS = [
    {"id": "a1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "a2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
    {"id": "b1", "text": "the project uses Postgres", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {"id": "b2", "text": "Postgres runs on port 5433", "created_at": "2025-02-01T00:00:00Z", "note": "ops"},
]


def _store(tmp_path, facts=FACTS):
    src = write_jsonl(tmp_path / "f.jsonl", facts)
    db = tmp_path / "memory.db"
    (tmp_path / "memory.synapse.toml").write_text("")
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    return db


def test_the_pane_strikes_the_old_words_and_bolds_the_new():
    old, new = marked_texts("deploys run on Fridays", "deploys run on Tuesdays since March")
    assert old.plain == "deploys run on Fridays" and new.plain == "deploys run on Tuesdays since March"
    struck = [old.plain[s.start : s.end] for s in old.spans if "strike" in str(s.style)]
    bold = [new.plain[s.start : s.end] for s in new.spans if "bold" in str(s.style)]
    assert struck == ["Fridays"] and bold == ["Tuesdays since March"]


async def test_dismiss_then_undo_then_accept_from_the_queue(tmp_path):
    db = _store(tmp_path)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ReplacedScreen)
        seen = screen_text(app)
        assert "a1 → a2" in seen and "b1 → b2" not in seen
        assert "why" in seen and "'Fridays' became 'Tuesdays since March'" in seen
        assert "accept" in seen and "dismiss" in seen  # the Footer names the keys
        await pilot.press("d")
        await settle(pilot)
        assert "nothing suggested" in screen_text(app)
        assert [e["action"] for e in audit(db)] == ["dismiss"]
        await pilot.press("ctrl+z")
        await settle(pilot)
        await settle(pilot)
        assert "a1 → a2" in screen_text(app)
        await pilot.press("y")
        await settle(pilot)
        await settle(pilot)
        assert db_row(db, "a2")["supersedes"] == "a1"
        assert [e["action"] for e in audit(db)][-1] == "supersede"
        assert "nothing suggested" in screen_text(app)
        assert json.loads(audit(db)[0]["after"])["dismissed"] == {"kind": "replaced", "other": "a2"}


async def test_space_marks_a_run_of_suggestions_as_in_the_list(tmp_path):
    """`space` marks the highlighted suggestion and moves down, as the list's does: two
    presses mark two, and `D` then dismisses both after asking."""
    facts = FACTS + [
        {"id": "c1", "text": "the build takes 5 minutes", "created_at": "2025-01-01T00:00:00Z", "note": "ci"},
        {
            "id": "c2",
            "text": "the build takes 3 minutes now",
            "created_at": "2025-04-01T00:00:00Z",
            "note": "ci",
        },
    ]
    db = _store(tmp_path, facts)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        seen = screen_text(app)
        assert "a1 → a2" in seen and "c1 → c2" in seen
        await pilot.press("space", "space")
        await settle(pilot)
        assert "(2 marked)" in screen_text(app)
        await pilot.press("D")
        await settle(pilot)
        await pilot.press("y")  # the confirmation
        await settle(pilot)
        await settle(pilot)
        assert sorted(json.loads(e["after"])["dismissed"]["other"] for e in audit(db)) == ["a2", "c2"]
