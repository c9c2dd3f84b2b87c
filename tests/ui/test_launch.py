"""Opening the browser: bad stores end with one clear line, and outside changes show up."""

from __future__ import annotations

import sqlite3

import pytest

from synapse_tui.ui.launch import launch
from tests.ui.helpers import SIZE, screen_text, settle


@pytest.mark.parametrize("content", [None, b"not a database at all"])
def test_bad_store_prints_a_message_not_a_traceback(tmp_path, capsys, content):
    db = tmp_path / "x.db"
    if content is not None:
        db.write_bytes(content)
    with pytest.raises(SystemExit) as exc:
        launch(str(db), now=None, config_path=None)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(db) in err
    assert "Traceback" not in err


def test_bad_now_is_reported(db, capsys):
    with pytest.raises(SystemExit) as exc:
        launch(str(db), now="yesterday", config_path=None)
    assert exc.value.code == 2
    assert "--now" in capsys.readouterr().err


async def test_another_process_committing_is_picked_up(app, db):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Disputed 3" in screen_text(app)
        other = sqlite3.connect(db)
        other.execute("UPDATE facts SET s = s + 9 WHERE id = 'f-pay-01'")
        other.commit()
        other.close()
        app.poll_store()
        await settle(pilot)
        assert "Disputed 4" in screen_text(app)
        assert app.main.current_fact_id() == "f-pay-01"


@pytest.mark.parametrize(
    "options",
    [
        ["--now", "yesterday"],
        ["--now=yesterday"],
        ["--config", "missing.toml", "--now", "2026-12-01T00:00:00Z"],
    ],
)
def test_top_level_options_open_the_browser_like_open_does(db, tmp_path, monkeypatch, options):
    """`synapse-tui --now T DB` is `synapse-tui open --now T DB`: the browser's options
    work without the subcommand (they reached click as unknown group options before)."""
    from click.testing import CliRunner

    from synapse_tui.cli import main

    monkeypatch.chdir(tmp_path)
    top = CliRunner().invoke(main, [*options, str(db)])
    sub = CliRunner().invoke(main, ["open", *options, str(db)])
    assert top.exit_code == sub.exit_code == 2
    assert top.stderr == sub.stderr and "no such option" not in top.stderr
    assert top.stderr.startswith("error: ") and top.stderr.count("\n") == 1


def test_the_group_keeps_its_own_options():
    from click.testing import CliRunner

    from synapse_tui.cli import main

    assert "Commands:" in CliRunner().invoke(main, ["--help"]).output
    assert "version" in CliRunner().invoke(main, ["--version"]).output
