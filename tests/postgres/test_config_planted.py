"""The attack a server's location once opened: read as a path, `postgresql://host/db` named
a config file in the working folder, so a file planted there (trusting the planter's key)
scored a team's facts. Run again through the CLI: it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from synapse_tui.core.ingest import signing
from tests.helpers import KEY, NOW, json_lines, run

pytestmark = pytest.mark.postgres


def test_a_config_planted_in_the_working_folder_does_not_score_a_server(
    db, new_database, tmp_path, monkeypatch
):
    url = new_database()
    run("copy", db, url)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    honest = {r["id"]: r for r in json_lines(run("score", url, "--json", "--now", NOW).stdout)}
    assert honest["c"]["tier"] != "signed"  # nobody vouched for the key on the server
    planted = Path(url).with_name(Path(url).stem + ".synapse.toml")  # where it was looked for
    planted.parent.mkdir(parents=True)
    planted.write_text(f'[trust]\nsigners = ["{signing.public_key_hex(KEY)}"]\n')
    after = {r["id"]: r for r in json_lines(run("score", url, "--json", "--now", NOW).stdout)}
    assert after == honest
    # the same config named on purpose does score: the planted one was never read
    named = {
        r["id"]: r for r in json_lines(run("score", url, "--json", "--now", NOW, "--config", planted).stdout)
    }
    assert named["c"]["tier"] == "signed" and named["c"]["trust"] > honest["c"]["trust"]
