"""The last line of the Replaced? and Gone? panes names every key that acts on the queue:
a person reading it learns `M` (mark all), `u` (clear), `Y` / `D` (act on the marked) as
well as `y`, `d` and `space`, and each key it names does what it says. A gone path's `d`
names the fact and its path, not the path as a fact replacing it (`by src/auth/login.py`)."""

from __future__ import annotations

import shutil

import pytest
from textual.binding import Binding

from synapse_tui.ui.screens.referent import ReferentScreen
from synapse_tui.ui.screens.replaced import ReplacedScreen
from tests.core.referent_repo import NOTES, build
from tests.ui.helpers import imported, make_app, record_notices, said, settle
from tests.ui.three_pairs import FACTS, listed

ACTING = ("accept", "dismiss_one", "mark", "mark_all", "clear_marks", "accept_marked", "dismiss_marked")


def hint(app) -> str:
    return next(line for line in said(app).splitlines() if "ctrl+z undoes" in line)


def named(screen: type) -> set[str]:
    """The keys of the queue's acting bindings, as the hint line spells them."""
    keys = {b.key.split(",")[0] for b in screen.BINDINGS if isinstance(b, Binding) and b.action in ACTING}
    return {"space" if k == "space" else k for k in keys}


def said_keys(line: str) -> set[str]:
    return {word.strip(",") for word in line.replace("/", " ").split()}


async def test_the_replaced_hint_names_mark_all_clear_and_the_marked_keys(tmp_path):
    db = imported(tmp_path, "pairs", FACTS)
    app = make_app(db)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("R")
            await listed(pilot, True)
            assert isinstance(app.screen, ReplacedScreen)
            line = hint(app)
            assert "M all" in line and "u none" in line and "Y / D act on the marked" in line, line
            assert named(ReplacedScreen) <= said_keys(line), line
            await pilot.press("M")  # what the line says M does: every suggestion marked
            await settle(pilot)
            assert "(3 marked)" in hint(app), hint(app)
            await pilot.press("u")
            await settle(pilot)
            assert "(0 marked)" in hint(app), hint(app)
    finally:
        app.store.close()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_the_gone_hint_names_mark_all_clear_and_the_marked_keys(tmp_path):
    repo = build(tmp_path / "repo", NOTES)
    db = imported(tmp_path, "memory", "--from", "git-notes", repo / "notes")
    app = make_app(db)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("B")
            await settle(pilot)
            await settle(pilot)
            assert isinstance(app.screen, ReferentScreen)
            line = hint(app)
            assert line.startswith("y contradicts · d dismisses"), line
            assert "M all" in line and "u none" in line and "Y / D act on the marked" in line, line
            assert named(ReferentScreen) <= said_keys(line), line
            await pilot.press("M")
            await settle(pilot)
            assert "(0 marked)" not in hint(app), hint(app)
            await pilot.press("u")
            await settle(pilot)
            gone = app.screen.current()
            notices = record_notices(app)
            await pilot.press("d")
            await settle(pilot)
            said_ = [text for _, text in notices]
            assert f"dismissed {gone.fact} ({gone.other}) (ctrl+z undoes it)" in said_, said_
            assert not any(f"by {gone.other}" in text for text in said_), said_
    finally:
        app.store.close()
