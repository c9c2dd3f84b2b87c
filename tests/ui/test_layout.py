"""The list paired with the detail pane: side by side when wide, stacked when narrow,
hidden with p; the pane follows the cursor; the full view steps through the list;
painting never waits on the database; the Suspect and Signature queues say why."""

from __future__ import annotations

import time

from synapse_tui.ui.screens.detail import DetailScreen
from synapse_tui.ui.widgets import explain as xp
from synapse_tui.ui.widgets.fact_detail import FactDetail
from synapse_tui.ui.widgets.fact_list import PLACEHOLDER, FactList
from tests.ui.helpers import screen_text, select, settle


def pane_text(app) -> str:
    """What the pane shows: its rectangle cut out of the screen."""
    r = app.main.query_one(FactDetail).region
    lines = screen_text(app).splitlines()[r.y : r.bottom]
    return "\n".join(line[r.x : r.right] for line in lines)


async def test_wide_terminals_pair_the_list_with_the_pane(app):
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        main = app.main
        assert main.has_class("-wide")
        facts, pane = main.query_one(FactList), main.query_one(FactDetail)
        columns = main.query_one("#list-pane")
        assert columns.region.y == pane.region.y and facts.region.right <= pane.region.x  # side by side
        text = pane_text(app)
        for part in ("f-pay-01", "TRUST", "Confidence", "OPINION", "REVIEW DUE", "WHAT WOULD MOVE IT"):
            assert part in text, part
        await pilot.press("down")
        await settle(pilot)
        assert "f-pay-02" in pane_text(app) and "Payments retries" in pane_text(app)
        await pilot.press("p")
        await pilot.pause()
        assert not pane.display and facts.region.width > 190  # the list takes the width
        await pilot.press("p")
        await settle(pilot)
        assert pane.display and "f-pay-02" in pane_text(app)


async def test_the_pane_shows_a_triaged_facts_new_score(app):
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await select(pilot, "f-old-1")
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        new = app.memory.scores.trust[app.memory.index["f-old-1"]]
        assert app.main.current_fact_id() == "f-old-1"
        assert f"{new:.2f}" in pane_text(app).splitlines()[0]  # the header's trust is the new one
        app.main.query_one(FactDetail).scroll_end(animate=False)
        await pilot.pause()
        history = pane_text(app).split("HISTORY")
        assert len(history) == 2 and "verify" in history[1]


async def test_narrow_terminals_stack_them(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        main = app.main
        assert main.has_class("-narrow")
        facts, pane = main.query_one(FactList), main.query_one(FactDetail)
        assert pane.region.y >= facts.region.bottom  # under the list
        assert "f-pay-01" in pane_text(app)
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        assert main.has_class("-wide") and pane.region.y == main.query_one("#list-pane").region.y


async def test_the_full_view_steps_through_the_list(app):
    async with app.run_test(size=(100, 50)) as pilot:
        await settle(pilot)
        await pilot.press("3")  # Disputed
        first = app.main.current_fact_id()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen.fact_id == first
        await pilot.press("right_square_bracket")
        await settle(pilot)
        second = app.screen.fact_id
        assert second != first and second == app.main.current_fact_id()
        assert screen_text(app).splitlines()[1].startswith(f" {second}")
        before = int(app.memory.arrays.s[app.memory.index[second]])
        await pilot.press("x")  # triage acts on the fact shown
        await settle(pilot)
        assert int(app.memory.arrays.s[app.memory.index[second]]) == before + 1
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.screen.fact_id == first


async def test_painting_never_waits_on_the_database(app):
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        facts = app.main.query_one(FactList)
        facts.invalidate(texts=True)  # as if nothing were read yet
        app.browser.lock.acquire()  # a long write holds the connection
        try:
            await pilot.press("end")
            deadline = time.monotonic() + 5  # the rows paint while the texts wait on the lock
            while PLACEHOLDER not in screen_text(app) and time.monotonic() < deadline:
                await pilot.pause(0.02)
            text = screen_text(app)
            assert PLACEHOLDER in text  # the rows painted, their texts to come
            assert facts.cursor == 29  # and the keys still work
        finally:
            app.browser.lock.release()
        await settle(pilot)  # it waits for the texts the list asked for
        assert "The incident commander" in screen_text(app)


async def test_suspect_and_signature_queues_say_why(app):
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("p", "6")  # the list alone; Suspect
        text = screen_text(app)
        assert "why" in next(line for line in text.splitlines() if line.startswith("band"))
        row = next(line for line in text.splitlines() if " f-dup-a " in line)
        assert "exact duplicate of f-dup-b" in row
        await select(pilot, "f-dup-a")
        await pilot.press("g")  # to the fact it duplicates, staying in the queue
        assert app.main.current_fact_id() == "f-dup-b"
        assert "Suspect" in screen_text(app).splitlines()[-2]
        await pilot.press("7")
        text = screen_text(app)
        for fact, why in (
            ("f-badsig", "forged"),
            ("f-nosig", "missing signature"),
            ("f-stranger", "untrusted key"),
        ):
            assert why in next(line for line in text.splitlines() if fact in line), fact


async def test_the_pane_names_the_source_system(app, monkeypatch):
    source = {
        "system": "mem0",
        "record": "m-42",
        "version": 2,
        "author": "agent:scribe",
        "unrecorded": ["corroborations", "contradictions"],
    }
    explain = app.browser.explain
    monkeypatch.setattr(app.browser, "explain", lambda fid: {**explain(fid), "source": source})
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        app.main.query_one(FactDetail).scroll_end(animate=False)
        await pilot.pause()
        text = " ".join(" ".join(line.strip("▏ ").split()) for line in pane_text(app).splitlines())
        assert "from mem0, record m-42, version 2, by agent:scribe" in text
        assert "mem0 never records: corroborations, contradictions" in text
    from dataclasses import replace

    plain = app.browser.explanation("f-pay-01")
    assert xp.source_lines(replace(plain, source=None), xp.palette({})).plain == ""  # nothing said


async def test_counts_agree_with_their_nouns(app):
    from dataclasses import replace

    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        o1 = app.browser.explanation("f-o1")
        assert o1.freshness_form == "o1"
        one = xp.reasons(replace(o1, reinforcement_count=1), 0.5, app.memory.scores.now)
        assert "1 reinforcement since" in one["freshness"]
        two = xp.reasons(replace(o1, reinforcement_count=2, corroborations=1), 0.5, app.memory.scores.now)
        assert "2 reinforcements since" in two["freshness"]
