"""The calibration screen's History tab (issue 41, point 3): the history fit beside the
verdict fit, adopted with the same question and undo; flat freshness offered when age does
not predict revision."""

from __future__ import annotations

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from synapse_tui.ui.screens.calibration import CalibrationScreen
from synapse_tui.ui.screens.confirm import ConfirmScreen
from tests.core.history_stores import OTHER, generate
from tests.helpers import run
from tests.ui.helpers import make_app, screen_text, settle


def _store(folder, truth):
    src, now = generate(folder / "h.jsonl", truth, days=400, horizon=90)
    db = folder / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    return db, format_time(now)


async def _open_history(pilot):
    await settle(pilot)
    pilot.app.push_screen(CalibrationScreen("history"))
    await settle(pilot)
    for _ in range(50):
        if pilot.app.screen.history is not None:
            break
        await settle(pilot, 0.2)


async def test_history_tab_adopts_with_the_bands_and_ctrl_z_puts_it_back(tmp_path):
    db, now = _store(tmp_path, OTHER)
    cfg = db.with_name("memory.synapse.toml")
    app = make_app(db, now=now)
    async with app.run_test(size=(120, 60)) as pilot:
        await _open_history(pilot)
        text = screen_text(app)
        assert "DID THE SCORE FORESEE WHAT HAPPENED NEXT?" in text and "survival per trust bin" in text
        app.screen.query_one("#his-body").scroll_end(animate=False)
        await settle(pilot)
        text = screen_text(app)
        assert "HISTORY FIT  adopt" in text and "AUC: current" in text and "a adopt fit" in text
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "freshness.b0" in screen_text(app) and "->" in screen_text(app)
        await pilot.press("y")
        await settle(pilot)
        assert cfg.exists() and app.config.freshness.b0 < -2.0
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert not cfg.exists() and app.config.freshness.b0 == -1.7
    app.store.close()


async def test_when_age_predicts_nothing_it_says_so_and_offers_flat_freshness(tmp_path):
    db, now = _store(tmp_path, None)
    app = make_app(db, now=now)
    async with app.run_test(size=(120, 60)) as pilot:
        await _open_history(pilot)
        text = screen_text(app)
        assert "On this memory, age does not predict revision." in text, text
        assert "f flatten freshness" in text
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert app.config.freshness.b0 == -6.0 and app.config.freshness.scale == 0.5
        assert float(app.memory.scores.freshness.min()) > 0.95  # old facts no longer stale
    app.store.close()


async def test_a_history_too_short_to_judge_says_so_under_the_auc(tmp_path):
    """110 days of history at the 90-day horizon (3 instants): the tab shows the AUC with why
    it judges nothing yet, in the words `calibrate --backtest --fit` prints."""
    src, now = generate(tmp_path / "h.jsonl", OTHER, days=110, horizon=90)
    db = tmp_path / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    cli = run("calibrate", db, "--backtest", "--fit", "--now", format_time(now)).stdout
    said = cli[cli.index("  not a judgement of the score:") :].split("\n\n")[0].splitlines()[1:]
    assert said and all(line.startswith("  - ") for line in said), cli
    app = make_app(db, now=format_time(now))
    async with app.run_test(size=(200, 80)) as pilot:
        await _open_history(pilot)
        app.screen.query_one("#his-body").scroll_end(animate=False)
        await settle(pilot)
        text = " ".join(screen_text(app).split())
        assert "not a judgement of the score:" in text
        for line in said:
            assert " ".join(line.split()) in text, (line, text)
    app.store.close()
