"""One sync, one undo step, on a server as on a file: the OpenClaw sync that writes a
claim's `corroborate` and `retract` (and another's `contradict`) is taken back whole by
one `undo`, and both stores then answer `score --json` as before the sync."""

from __future__ import annotations

import pytest

from tests.cli.openclaw_pages import ONE, TWO, page, rebuild, region, vault
from tests.cli_run import run
from tests.helpers import json_lines

pytestmark = pytest.mark.postgres

CLOCK = {"SYNAPSE_NOW": "2026-05-01T00:00:00Z"}


def test_one_undo_takes_back_a_whole_sync_on_a_server(tmp_path, new_database):
    folder = vault(tmp_path, page(region("contested", ONE), rebuild("supported", ONE)))
    file, url = tmp_path / "m.db", new_database()
    before = {}
    for target in (file, url):
        run("import", "--from", "openclaw", folder, "--db", target, env=CLOCK)
        before[target] = json_lines(run("score", target, "--json", env=CLOCK).stdout)
    vault(tmp_path, page(region("supported", TWO), rebuild("contested", ONE)))
    said = {}
    for target in (file, url):
        run("sync", target, env=CLOCK)
        said[target] = run("undo", target, env=CLOCK).stdout.split(" (by ")[0]
        assert json_lines(run("score", target, "--json", env=CLOCK).stdout) == before[target]
    assert said[file] == said[url] == "undid corroborate+contradict+retract 2 facts"
    assert before[file] == before[url]
