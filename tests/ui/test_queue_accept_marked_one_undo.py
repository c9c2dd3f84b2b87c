"""`Y` on marked suggestions superseded each pair as its own action: undoing 100 accepted
suggestions took 100 ctrl+z, where `D` (dismiss marked) is one. Now `Y` is one audited
action too: one ctrl+z brings every pair back as a suggestion, ctrl+y lands them again, and
one pair refused (a cycle) writes none of them."""

from __future__ import annotations

import json

from synapse_tui.ui.screens.replaced import ReplacedScreen
from tests.cli_run import run
from tests.ui.helpers import SIZE, errors, imported, make_app, record_notices, said, screen_text, settle
from tests.ui.three_pairs import FACTS, PAIRS, SHOWN, listed


def superseded_by(db, fid: str) -> list[str]:
    return json.loads(run("show", db, fid, "--json").output)["superseded_by"]


async def test_accepting_three_marked_is_one_undo_step(tmp_path):
    db = imported(tmp_path, "memory", FACTS)
    app = make_app(db)
    notices = record_notices(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ReplacedScreen)
        assert all(s in screen_text(app) for s in SHOWN), screen_text(app)
        await pilot.press("M", "Y")
        await settle(pilot)
        text = said(app)
        assert "accept 3 marked suggestions as one action" in text and "ctrl+z undoes them all" in text, text
        await pilot.press("y")  # the confirmation
        await settle(pilot)
        await settle(pilot)
        assert [superseded_by(db, f"{p}1") for p, *_ in PAIRS] == [["a2"], ["c2"], ["e2"]]
        assert (
            "information",
            "accepted 3 suggestions (3 superseded by their newer facts) as one action (ctrl+z undoes it)",
        ) in notices, notices
        text = await listed(pilot, False)
        assert not any(s in text for s in SHOWN), text
        await pilot.press("ctrl+z")  # one step brings all three back
        await settle(pilot)
        await settle(pilot)
        assert [superseded_by(db, f"{p}1") for p, *_ in PAIRS] == [[], [], []]
        assert any(text.startswith("undo supersede 3 facts") for _, text in notices), notices
        text = await listed(pilot, True)
        assert all(s in text for s in SHOWN), text
        await pilot.press("ctrl+y")  # and one redoes them
        await settle(pilot)
        await settle(pilot)
        assert [superseded_by(db, f"{p}1") for p, *_ in PAIRS] == [["a2"], ["c2"], ["e2"]]


async def test_one_refused_pair_writes_none_and_is_named(tmp_path):
    # a1 names a2 as its predecessor already: a2 superseding a1 would be a cycle
    facts = [dict(f, supersedes="a2") if f["id"] == "a1" else f for f in FACTS]
    db = imported(tmp_path, "memory", facts)
    app = make_app(db)
    notices = record_notices(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert all(s in screen_text(app) for s in SHOWN), screen_text(app)
        await pilot.press("M", "Y", "y")
        await settle(pilot)
        await settle(pilot)
        refusals = errors(notices)
        assert len(refusals) == 1 and "nothing changed" in refusals[0], notices
        assert "a1" in refusals[0] and "a2" in refusals[0], refusals
        assert "cycle" in refusals[0], refusals
        assert [superseded_by(db, f"{p}1") for p, *_ in PAIRS] == [[], [], []]  # not c's nor e's either
        assert all(s in screen_text(app) for s in SHOWN), screen_text(app)
