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


def _browser(db, **streams):
    """`synapse-tui DB` as a process, on this checkout, with the streams given."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("TEXTUAL_DRIVER", None)
    cmd = [sys.executable, "-m", "synapse_tui", str(db)]
    return subprocess.run(cmd, env=env, cwd=root, timeout=60, check=False, **streams)


def test_no_terminal_on_stdin_is_one_line_not_a_deaf_browser(db):
    """`echo | synapse-tui DB` (or ssh without -t) drew the browser and waited for keys it
    could never read, `q` included: now one line names what is missing, and it ends."""
    import subprocess

    done = _browser(db, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert done.stdout == b""
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: the browser needs a terminal: its keys come from stdin"), lines
    assert "synapse-tui score DB" in lines[0]


def test_stderr_redirected_says_so_on_the_terminal_instead_of_a_blank_screen(db, tmp_path):
    """`synapse-tui DB 2> log` drew the whole browser into the log (Textual draws on
    stderr) and left the terminal blank: now the line is in the log and on the terminal."""
    import os

    main, side = os.openpty()
    log = tmp_path / "err.log"
    try:
        with log.open("wb") as err:
            done = _browser(db, stdin=side, stdout=side, stderr=err)
        os.close(side)
        shown = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(main)
    assert done.returncode == 2
    said = log.read_text()
    assert (
        said.startswith("error: the browser needs a terminal: it draws on stderr") and said.count("\n") == 1
    )
    assert said.strip() in shown.decode().replace("\r\n", "\n")
