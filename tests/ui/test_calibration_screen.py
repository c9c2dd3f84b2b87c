"""The calibration screen's Verdicts tab (issue 20, point 5) and its undo (issue 23, point 3)."""

from __future__ import annotations

import sqlite3

from synapse_tui.ui.screens.calibration import CalibrationScreen
from synapse_tui.ui.screens.confirm import ConfirmScreen
from tests.ui.helpers import footer_line, make_app, screen_text, settle
from tests.verdict_stores import verdicts_store


def audit_actions(db) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [row[0] for row in conn.execute("SELECT action FROM audit ORDER BY seq")]
    finally:
        conn.close()


async def open_verdicts(pilot) -> None:
    await settle(pilot)
    pilot.app.push_screen(CalibrationScreen("verdicts"))
    await settle(pilot)


async def test_verdicts_tab_shows_the_table_diagram_and_fit(tmp_path):
    db = verdicts_store(tmp_path, pairs=60)
    app = make_app(db)
    async with app.run_test(size=(120, 60)) as pilot:
        await open_verdicts(pilot)
        text = screen_text(app)
        for part in ("IS THE SCORE RIGHT?", "120 verdicts by people: 60 holds, 60 wrong", "per trust bin"):
            assert part in text, part
        assert app.screen.query_one("#ver-plot").region.height >= 10
        app.screen.query_one("#ver-body").scroll_end(animate=False)
        await settle(pilot)
        text = screen_text(app)
        assert "FITTED CONSTANTS  adopt" in text and "held-out log loss" in text
        assert "a adopt fit" in text  # the footer offers it because the fit won


async def test_a_small_terminal_keeps_the_table(tmp_path):
    db = verdicts_store(tmp_path, pairs=20)
    app = make_app(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_verdicts(pilot)
        assert app.screen.has_class("-cramped")
        assert app.screen.query_one("#ver-plot").region.height == 0
        assert "per trust bin" in screen_text(app)


async def test_adopt_asks_with_the_bands_then_ctrl_z_puts_the_config_back(tmp_path):
    db = verdicts_store(tmp_path, pairs=60)
    cfg = db.with_name("memory.synapse.toml")
    app = make_app(db)
    triage_before = audit_actions(db)
    async with app.run_test(size=(120, 60)) as pilot:
        await open_verdicts(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        question = screen_text(app)
        assert "very low" in question and "->" in question and "freshness.b0" in question
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, CalibrationScreen)
        assert cfg.exists() and app.config.freshness.b0 != -1.7
        fitted_b0 = app.config.freshness.b0
        assert abs(app.memory.config.freshness.b0 - fitted_b0) < 1e-12  # every fact rescored
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert not cfg.exists()  # there was no config file before: there is none again
        assert app.config.freshness.b0 == -1.7 and app.memory.config.freshness.b0 == -1.7
        assert audit_actions(db) == triage_before  # the write was undone, no triage action


async def test_ctrl_z_here_never_undoes_an_old_triage_action(tmp_path):
    """Issue 23.3: with nothing written in this view, ctrl+z is not offered and does nothing."""
    db = verdicts_store(tmp_path, pairs=5)
    app = make_app(db)
    before = audit_actions(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_verdicts(pilot)
        footer = await footer_line(pilot, "esc close", absent=("undo",))
        assert "undo" not in footer, footer
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert audit_actions(db) == before
        assert isinstance(app.screen, CalibrationScreen)


async def test_the_freshness_write_is_undoable_too(tmp_path):
    db = verdicts_store(tmp_path, pairs=5)
    cfg = db.with_name("memory.synapse.toml")
    cfg.write_text("# mine\n[review]\nthreshold = 0.4\n")
    app = make_app(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(CalibrationScreen())
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert "b0 = " in cfg.read_text()
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert cfg.read_text() == "# mine\n[review]\nthreshold = 0.4\n"


async def test_help_names_every_tab_key_and_each_goes_to_its_tab(tmp_path):
    """Help's tab row says 1, 2 and 3 (it said "1 and 2" though History is a third tab),
    and each of the three goes to its tab."""
    from synapse_tui.ui.screens.help import binding_rows

    db = verdicts_store(tmp_path, pairs=5)
    app = make_app(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(CalibrationScreen())
        await settle(pilot)
        rows = dict(binding_rows(app.screen))
        assert "1, 2 and 3 go to each" in rows["⇥"], rows["⇥"]
        for key, tab in (("3", "history"), ("2", "verdicts"), ("1", "freshness")):
            await pilot.press(key)
            await settle(pilot)
            assert app.screen.active_tab == tab
