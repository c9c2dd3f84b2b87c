"""Pilot tests of the views: detail, help, palette, calibration and as-of (the neighbour
view: test_graph_views.py)."""

from __future__ import annotations

from textual.widgets import OptionList

from synapse_tui.core.base.config import load_config
from synapse_tui.ui.screens.calibration import CalibrationScreen
from synapse_tui.ui.screens.detail import DetailScreen
from synapse_tui.ui.screens.help import HelpScreen
from synapse_tui.ui.screens.main import MainScreen
from synapse_tui.ui.widgets.fact_list import FactList
from tests.ui.helpers import SIZE, palette_answered, screen_text, select, settle


async def test_detail_of_a_disputed_fact(app):
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        await select(pilot, "f-deploy")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        text = screen_text(app)
        for part in (
            "f-deploy",
            "Production deploys happen on Fridays after 4pm",
            "Confidence",
            "Freshness",
            "Supersession",
            "Gate",
            "r=1 s=3",
            "disputed: go resolve",
            "REVIEW DUE",
            "corroborate (c)",
            "x-ai-agent: scribe/1.3",
            "HISTORY",
            "contradictions weigh heavily",
        ):
            assert part in text, part
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


async def test_detail_of_a_stale_signed_fact(app):
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        await select(pilot, "f-sso")
        await pilot.press("enter")
        await settle(pilot)
        text = screen_text(app)
        for part in (
            "tier signed",
            "valid, trusted signer",
            "stale:",
            "x-ai-source: security handbook",
            "below the review threshold 0.50",
        ):
            assert part in text, part


async def test_detail_wraps_long_text_and_shows_markup_literally(app):
    async with app.run_test(size=(60, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "f-markup")
        await pilot.press("enter")
        await settle(pilot)
        text = screen_text(app)
        assert "[red]bold[/red]" in text and "␛[31m" in text


async def test_detail_chain_jumps_and_comes_back(app):
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        await select(pilot, "f-db-v1")
        await pilot.press("enter")
        await settle(pilot)
        chain = app.screen.query_one("#detail-chain", OptionList)
        ids = [chain.get_option_at_index(i).id for i in range(chain.option_count)]
        assert ids == ["f-db-v1", "f-db-v2", "f-db-v3"]
        chain.focus()
        chain.highlighted = 2
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.fact_id == "f-db-v3"
        assert "Postgres 16" in screen_text(app)
        assert app.main.current_fact_id() == "f-db-v3"
        await pilot.press("backspace")
        await settle(pilot)
        assert app.screen.fact_id == "f-db-v1"


async def test_help_lists_every_key_from_the_bindings(app):
    # 62 rows: the whole list of keys, the pane's shift+up / shift+down row included, in sight
    async with app.run_test(size=(100, 62)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        for part in (
            "Corroborate the fact shown: r + 1",
            "Contradict",
            "Verify",
            "Accept",
            "Supersede",
            "Undo: the last",
            "Search: full text",
            "neighbours",
            "Move down one fact",
            "Queue Stale",
            "Quit",
        ):
            assert part in text, part
        # generated from the live bindings, not a hand-written list
        keys = {row[0] for row in app.screen.rows}
        assert {"c", "x", "v", "a", "s", "/", "n", "q", "?"} <= {k for ks in keys for k in ks.split()}
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


async def test_command_palette_switches_queue(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"queue disputed")
        await palette_answered(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert len(app.query_one(FactList).order) == 3
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"sort by trust, reversed")
        await palette_answered(pilot)
        await pilot.press("enter")
        await settle(pilot)
        facts = app.query_one(FactList)
        trust = app.memory.scores.trust[facts.order]
        assert (trust[:-1] >= trust[1:]).all()


async def test_calibration_view_and_apply(app, db):
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        app.action_calibrate()
        await settle(pilot)
        assert isinstance(app.screen, CalibrationScreen)
        text = screen_text(app)
        for part in ("B0 (freshness.b0)", "-1.70", "AGE OF FACTS", "ACTIVATION B", "before", "after"):
            assert part in text, part
        proposed = app.screen.calibration.proposed_b0
        await pilot.press("w")
        await settle(pilot)
        cfg = load_config(db.with_name("memory.synapse.toml"))
        assert abs(cfg.freshness.b0 - proposed) < 1e-9
        assert cfg.trust.signers  # the rest of the config survives
        assert abs(app.memory.config.freshness.b0 - proposed) < 1e-9
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_as_of_rescoring_and_back(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = float(app.memory.scores.trust[app.memory.index["f-pay-01"]])
        app.action_as_of()
        await pilot.pause()
        await pilot.press(*"2027-06-01T00:00:00Z", "enter")
        await settle(pilot)
        text = screen_text(app)
        assert "AS OF 2027-06-01T00:00:00Z" in text
        after = float(app.memory.scores.trust[app.memory.index["f-pay-01"]])
        assert after < before  # half a year later the fact has faded
        app.action_as_of()
        await pilot.pause()
        await pilot.press("ctrl+u", *"-30d", "enter")
        await settle(pilot)
        assert "AS OF 2026-11-01T00:00:00Z" in screen_text(app)
        app.set_as_of(None)
        await settle(pilot)
        assert "AS OF" not in screen_text(app)
        assert float(app.memory.scores.trust[app.memory.index["f-pay-01"]]) == before


async def test_as_of_rejects_bad_input_inline(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.action_as_of()
        await pilot.pause()
        await pilot.press(*"yesterday", "enter")
        await pilot.pause()
        assert "not a time: 'yesterday'" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.as_of is None


async def test_triage_keys_reach_the_hook(app, monkeypatch):
    """Every triage key starts the move on the fact shown: the list's, then the open one's."""
    calls = []
    monkeypatch.setattr(app, "start_triage", lambda move, ids, target=None, **kw: calls.append((move, ids)))
    monkeypatch.setattr(app, "push_screen", lambda screen, callback=None: callback and callback("f-pay-02"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c", "x", "v", "a", "s", "ctrl+z")
    assert calls == [
        ("corroborate", ["f-pay-01"]),
        ("contradict", ["f-pay-01"]),
        ("verify", ["f-pay-01"]),
        ("accept", ["f-pay-01"]),
        ("supersede", ["f-pay-01"]),
        ("undo", []),
    ]


async def test_triage_keys_act_on_the_open_fact_in_the_detail_view(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "f-deploy")
        await pilot.press("space")  # a mark in the list does not redirect the open fact's key
        await select(pilot, "f-old-1")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert int(app.memory.arrays.s[app.memory.index["f-old-1"]]) == 1
        assert int(app.memory.arrays.s[app.memory.index["f-deploy"]]) == 3
