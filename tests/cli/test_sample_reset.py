"""`synapse-tui sample --reset` gives the working copy back as bundled (issue 23)."""

from __future__ import annotations

from click.testing import CliRunner

from synapse_tui.cli import main
from synapse_tui.core.store.db import Store


def test_sample_reset_rebuilds_the_working_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNAPSE_DATA_DIR", str(tmp_path))
    runner = CliRunner()
    path = runner.invoke(main, ["sample"]).stdout.strip().splitlines()[-1]
    with Store.open(path) as store:
        first = store._conn.execute("SELECT id FROM facts ORDER BY pos LIMIT 1").fetchone()[0]
    done = runner.invoke(main, ["verify", path, first])
    assert done.exit_code == 0, done.output
    with Store.open(path) as store:
        assert store._conn.execute("SELECT count(*) FROM audit").fetchone()[0] == 1
    again = runner.invoke(main, ["sample"]).stdout.strip().splitlines()[-1]
    with Store.open(again) as store:  # without --reset the triage stays
        assert store._conn.execute("SELECT count(*) FROM audit").fetchone()[0] == 1
    reset = runner.invoke(main, ["sample", "--reset"])
    assert reset.exit_code == 0, reset.output
    assert reset.stdout.strip().splitlines()[-1] == path
    with Store.open(path) as store:
        assert store._conn.execute("SELECT count(*) FROM audit").fetchone()[0] == 0
